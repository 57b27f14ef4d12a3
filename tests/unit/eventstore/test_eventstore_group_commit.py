"""Group commit: concurrent appends share a database call; each gets its own outcome."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from parlor.eventstore import Metadata, NewEvent
from parlor.eventstore.group_commit import AppendRequest, GroupCommit, batch_params


def request(stream: str, *kinds: str, expected: int = 0) -> AppendRequest:
    return AppendRequest(stream, expected, None, tuple(NewEvent(k, b"") for k in kinds))


RECORDED_AT = datetime(2026, 12, 1, tzinfo=UTC)  # the statement's now()


class FakeDatabase:
    """Answers ``parlor_append`` calls: request i gets version i, positions in order."""

    def __init__(self, fail: Exception | None = None, delay: float = 0.01) -> None:
        self.batches: list[int] = []
        self.fail = fail
        self.delay = delay

    async def execute(self, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        self.batches.append(len(params["stream_ids"]))
        await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail
        return [
            (i, "appended", i, i, i * 10, i * 10, RECORDED_AT)
            for i in range(1, len(params["stream_ids"]) + 1)
        ]


async def test_concurrent_appends_share_one_call_and_each_gets_its_own_outcome() -> None:
    db = FakeDatabase()
    commit = GroupCommit(db.execute)
    results = await asyncio.gather(*(commit.submit(request(f"g-{n}", "A")) for n in range(5)))
    assert db.batches == [1, 4]  # the first goes at once, the others wait for it together
    assert [r[1] for r in results] == [1, 1, 2, 3, 4]


async def test_appends_arriving_during_a_call_go_together_in_the_next_one() -> None:
    db = FakeDatabase(delay=0.05)
    commit = GroupCommit(db.execute)
    first = asyncio.create_task(commit.submit(request("g-1", "A")))
    await asyncio.sleep(0.01)  # the first call is in the database now
    later = [asyncio.create_task(commit.submit(request(f"g-{n}", "A"))) for n in range(2, 5)]
    await asyncio.gather(first, *later)
    assert db.batches == [1, 3]


async def test_a_failed_call_fails_every_append_in_it_and_the_next_ones_still_run() -> None:
    db = FakeDatabase(fail=ConnectionError("lost"))
    commit = GroupCommit(db.execute)
    results = await asyncio.gather(
        *(commit.submit(request(f"g-{n}", "A")) for n in range(3)), return_exceptions=True
    )
    assert db.batches == [1, 2]
    assert all(isinstance(r, ConnectionError) for r in results)
    db.fail = None
    assert (await commit.submit(request("g-9", "A")))[0] == "appended"


async def test_a_caller_that_gives_up_does_not_stop_the_others() -> None:
    db = FakeDatabase(delay=0.05)
    commit = GroupCommit(db.execute)
    impatient = asyncio.create_task(commit.submit(request("g-1", "A")))  # in the database
    patient = [asyncio.create_task(commit.submit(request(f"g-{n}", "A"))) for n in (2, 3)]
    await asyncio.sleep(0.01)
    impatient.cancel()
    with pytest.raises(asyncio.CancelledError):
        await impatient
    assert [(await p)[0] for p in patient] == ["appended", "appended"]
    assert (await commit.submit(request("g-4", "A")))[0] == "appended"
    assert db.batches == [1, 2, 1]


def test_batch_params_tag_each_event_with_its_request_and_offset() -> None:
    params = batch_params(
        [
            request("g-1", "A", "B", expected=3),
            AppendRequest("g-2", 0, "cmd", (NewEvent("C", b"c", 2, Metadata(actor="p1")),)),
        ]
    )
    assert params["stream_ids"] == ["g-1", "g-2"]
    assert params["expected"] == [3, 0]
    assert params["command_ids"] == [None, "cmd"]
    assert params["requests"] == [1, 1, 2]
    assert params["offsets"] == [1, 2, 1]
    assert params["types"] == ["A", "B", "C"]
    assert params["schema_versions"] == [1, 1, 2]
    assert params["actors"] == [None, None, "p1"]
    assert params["causation_ids"] is None  # all NULL: sent as one NULL
