"""One contract, two stores: every test runs on the in-memory store and on PostgreSQL.

The PostgreSQL parameter is marked ``integration``; ``-m "not integration"``
keeps the in-memory half as fast unit tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from parlor.core.errors import AlreadyExists, Conflict, InvalidArgument
from parlor.eventstore import (
    ANY_VERSION,
    NO_STREAM,
    EventStore,
    InMemoryEventStore,
    Metadata,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
    Snapshot,
)


@pytest.fixture(
    params=[
        "memory",
        "memory-P4",
        pytest.param("postgres", marks=pytest.mark.integration),
        pytest.param("postgres-P4", marks=pytest.mark.integration),
    ],
)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    """Each store with one global order (P = 1) and with it split into four partitions."""
    kind, _, split = str(request.param).partition("-P")
    partitions = int(split or 1)
    if kind == "memory":
        yield InMemoryEventStore(partitions=partitions)
        return
    url = request.getfixturevalue("migrated_url")
    pg = PostgresEventStore(url, poll_interval=0.2, partitions=partitions)
    try:
        yield pg
    finally:
        await pg.close()


def moves(*names: str) -> list[NewEvent]:
    return [NewEvent(type=name, data=name.encode()) for name in names]


class TestEventStoreContract:
    async def test_append_then_read_stream_gives_events_in_version_order(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        result = await store.append(stream, moves("GameCreated", "DiscDropped"), NO_STREAM)
        await store.append(stream, moves("DiscDropped"), 2)
        read = await store.read_stream(stream)
        assert [(e.version, e.type, e.data) for e in read] == [
            (1, "GameCreated", b"GameCreated"),
            (2, "DiscDropped", b"DiscDropped"),
            (3, "DiscDropped", b"DiscDropped"),
        ]
        assert (result.first_version, result.last_version) == (1, 2)
        assert [e.position for e in read[:2]] == list(result.positions)
        assert read[0].position < read[1].position < read[2].position
        assert all(e.stream_id == stream for e in read)

    async def test_append_returns_the_events_exactly_as_read_back(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        meta = Metadata(actor="alice", correlation_id="corr-1", extra={"k": "v"})
        first = await store.append(stream, moves("GameCreated"), NO_STREAM)
        second = await store.append(
            stream,
            [NewEvent("DiscDropped", b"d1", metadata=meta), NewEvent("Won", b"w", 2, meta)],
            1,
            command_id="cmd-1",
        )
        read = await store.read_stream(stream)
        assert list(first.events + second.events) == read
        assert [e.version for e in second.events] == list(second.versions)
        assert [e.position for e in second.events] == list(second.positions)
        assert second.recorded_at == read[1].recorded_at == read[2].recorded_at
        assert second.events[0].metadata.command_id == "cmd-1"
        again = await store.append(
            stream, [NewEvent("DiscDropped", b"d1", metadata=meta)], 1, command_id="cmd-1"
        )
        assert again.duplicate
        assert again.events == ()
        assert again.recorded_at is None

    async def test_creating_a_stream_that_exists_is_a_conflict(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        await store.append(stream, moves("GameCreated"), NO_STREAM)
        with pytest.raises(Conflict):
            await store.append(stream, moves("GameCreated"), NO_STREAM)

    async def test_wrong_expected_version_is_a_conflict_naming_stream_expected_and_actual(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        await store.append(stream, moves("A", "B", "C"), NO_STREAM)
        with pytest.raises(Conflict) as caught:
            await store.append(stream, moves("D"), 2)
        error = caught.value
        assert error.code == "ABORTED"
        assert error.reason == "WRONG_EXPECTED_VERSION"
        assert stream in error.message
        assert "2" in error.message
        assert "3" in error.message
        assert error.metadata == {
            "stream_id": stream,
            "expected_version": "2",
            "actual_version": "3",
        }
        assert await store.stream_version(stream) == 3

    async def test_expected_version_ahead_of_the_stream_is_a_conflict(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        await store.append(stream, moves("A"), NO_STREAM)
        with pytest.raises(Conflict):
            await store.append(stream, moves("B"), 5)
        assert await store.stream_version(stream) == 1

    async def test_any_version_appends_after_whatever_is_there(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        await store.append(stream, moves("A"), ANY_VERSION)
        result = await store.append(stream, moves("B"), ANY_VERSION)
        assert result.first_version == 2
        assert await store.stream_version(stream) == 2

    async def test_read_stream_from_and_to_version_are_inclusive(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        await store.append(stream, moves("A", "B", "C", "D", "E"), NO_STREAM)
        assert [e.type for e in await store.read_stream(stream, from_version=3)] == ["C", "D", "E"]
        assert [e.type for e in await store.read_stream(stream, 2, 3)] == ["B", "C"]
        assert [e.type for e in await store.read_stream(stream, to_version=1)] == ["A"]

    async def test_missing_stream_has_version_zero_and_no_events(
        self, store: EventStore, unique: str
    ) -> None:
        assert await store.stream_version(f"game-{unique}") == NO_STREAM
        assert await store.read_stream(f"game-{unique}") == []

    async def test_read_all_follows_global_order_from_a_position_with_a_limit(
        self, store: EventStore, unique: str
    ) -> None:
        a, b = f"game-{unique}a", f"game-{unique}b"
        first = await store.append(a, moves("A1"), NO_STREAM)
        await store.append(b, moves("B1", "B2"), NO_STREAM)
        await store.append(a, moves("A2"), 1)
        read = await store.read_all(first.first_position, limit=3)
        assert [(e.stream_id, e.type) for e in read] == [(a, "A1"), (b, "B1"), (b, "B2")]
        rest = await store.read_all(read[-1].position + 1, limit=100)
        assert [(e.stream_id, e.type) for e in rest if e.stream_id in (a, b)] == [(a, "A2")]

    async def test_streams_touched_names_a_categorys_streams_in_a_range_each_once(
        self, store: EventStore, unique: str
    ) -> None:
        cat = f"cat{unique.replace('-', '')}"[:40]
        a, b, c = f"{cat}-a", f"{cat}-b", f"{cat}-c"
        first = await store.append(a, moves("A1"), NO_STREAM)
        await store.append(f"{cat}x-a", moves("X1"), NO_STREAM)  # another category
        await store.append(b, moves("B1", "B2"), NO_STREAM)
        await store.append(a, moves("A2"), 1)
        last = await store.append(c, moves("C1"), NO_STREAM)
        start = first.first_position - 1
        assert await store.streams_touched(cat, start, last.last_position) == [a, b, c]
        assert await store.streams_touched(cat, start + 1, last.last_position) == [b, a, c]
        assert await store.streams_touched(cat, start, last.last_position - 1) == [a, b]
        assert await store.streams_touched(cat, last.last_position, last.last_position) == []

    async def test_retried_command_returns_the_first_result_and_appends_nothing(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        first = await store.append(stream, moves("A", "B"), NO_STREAM, command_id="cmd-1")
        again = await store.append(stream, moves("A", "B"), NO_STREAM, command_id="cmd-1")
        assert not first.duplicate
        assert again.duplicate
        assert (again.first_version, again.last_version) == (
            first.first_version,
            first.last_version,
        )
        assert again.positions == first.positions
        assert await store.stream_version(stream) == 2

    async def test_retried_command_returns_the_first_result_even_after_later_appends(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        first = await store.append(stream, moves("A"), NO_STREAM, command_id="cmd-1")
        await store.append(stream, moves("B"), 1, command_id="cmd-2")
        again = await store.append(stream, moves("A"), NO_STREAM, command_id="cmd-1")
        assert again.duplicate
        assert again.last_version == first.last_version == 1
        assert await store.stream_version(stream) == 2

    async def test_a_command_id_reused_for_another_command_is_refused_and_appends_nothing(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        first = await store.append(
            stream, moves("A"), NO_STREAM, command_id="cmd-1", fingerprint="fp-play-a"
        )
        await store.append(stream, moves("B"), 1, command_id="cmd-2", fingerprint="fp-play-b")
        with pytest.raises(AlreadyExists) as refused:
            await store.append(
                stream, moves("C"), ANY_VERSION, command_id="cmd-1", fingerprint="fp-play-c"
            )
        assert refused.value.reason == "COMMAND_ID_REUSED"
        assert [e.type for e in await store.read_stream(stream)] == ["A", "B"]
        again = await store.append(
            stream, moves("A"), NO_STREAM, command_id="cmd-1", fingerprint="fp-play-a"
        )
        assert again.duplicate
        assert again.positions == first.positions
        known = await store.command_result(stream, "cmd-1")
        assert known is not None
        assert known.fingerprint == "fp-play-a"
        unmarked = await store.append(stream, moves("A"), NO_STREAM, command_id="cmd-1")
        assert unmarked.duplicate  # no fingerprint given: nothing to compare, first outcome
        assert await store.stream_version(stream) == 2

    async def test_command_ids_are_per_stream(self, store: EventStore, unique: str) -> None:
        one = await store.append(f"game-{unique}a", moves("A"), NO_STREAM, command_id="same")
        two = await store.append(f"game-{unique}b", moves("A"), NO_STREAM, command_id="same")
        assert not one.duplicate
        assert not two.duplicate

    async def test_metadata_is_recorded_with_every_event(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        meta = Metadata(
            actor="player-7", causation_id="c-1", correlation_id="m-1", extra={"trace": "t"}
        )
        await store.append(
            stream,
            [NewEvent("A", b"\x00\x01", schema_version=3, metadata=meta)],
            NO_STREAM,
            command_id="cmd-9",
        )
        (event,) = await store.read_stream(stream)
        assert event.schema_version == 3
        assert event.data == b"\x00\x01"
        assert event.metadata == Metadata(
            command_id="cmd-9",
            actor="player-7",
            causation_id="c-1",
            correlation_id="m-1",
            extra={"trace": "t"},
        )
        assert event.recorded_at.tzinfo is not None
        assert event.message_id == f"{stream}:1"

    async def test_old_schema_versions_are_upcast_on_read(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        kind = f"Scored{unique}"
        await store.append(stream, [NewEvent(kind, b"7", schema_version=1)], NO_STREAM)
        await store.append(stream, [NewEvent(kind, b"v2:8", schema_version=2)], 1)
        upcasters = store.upcasters  # type: ignore[attr-defined]
        upcasters.register(kind, 1, lambda data: b"v2:" + data)
        upcasters.register(kind, 2, lambda data: data.replace(b"v2:", b"v3:"))
        read = await store.read_stream(stream)
        assert [(e.schema_version, e.data) for e in read] == [(3, b"v3:7"), (3, b"v3:8")]
        (first,) = await store.read_all(read[0].position, limit=1)
        assert (first.schema_version, first.data) == (3, b"v3:7")

    async def test_subscribe_all_gives_past_events_then_waits_for_new_ones(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        first = await store.append(stream, moves("A"), NO_STREAM)
        seen: list[str] = []

        async def follow() -> None:
            async for event in store.subscribe_all(first.first_position):
                if event.stream_id == stream:
                    seen.append(event.type)
                if len(seen) == 3:
                    return

        follower = asyncio.create_task(follow())
        await asyncio.sleep(0.05)
        await store.append(stream, moves("B"), 1)
        await store.append(stream, moves("C"), 2)
        await asyncio.wait_for(follower, 10)
        assert seen == ["A", "B", "C"]

    async def test_malformed_stream_ids_and_empty_appends_are_invalid_arguments(
        self, store: EventStore
    ) -> None:
        for bad in ("nocategory", "game.1-x", "game-a.b", "game-*", "Game-1", "game-"):
            with pytest.raises(InvalidArgument):
                await store.append(bad, moves("A"), NO_STREAM)
        with pytest.raises(InvalidArgument):
            await store.append("game-1", [], NO_STREAM)
        with pytest.raises(InvalidArgument):
            await store.append("game-1", moves("Bad Type"), NO_STREAM)
        with pytest.raises(InvalidArgument):
            await store.append("game-1", moves("A"), -2)

    async def test_snapshot_plus_later_events_rebuilds_the_same_state_as_replay_from_zero(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        points = [NewEvent("Scored", str(n).encode()) for n in range(1, 31)]
        await store.append(stream, points[:20], NO_STREAM)

        def fold(total: int, events: list[RecordedEvent]) -> int:
            return total + sum(int(e.data) for e in events)

        at_20 = fold(0, await store.read_stream(stream))
        await store.save_snapshot(Snapshot(stream, 20, "Total", str(at_20).encode()))
        await store.append(stream, points[20:], 20)

        snapshot = await store.load_snapshot(stream)
        assert snapshot is not None
        assert snapshot.version == 20
        from_snapshot = fold(
            int(snapshot.data), await store.read_stream(stream, snapshot.version + 1)
        )
        assert from_snapshot == fold(0, await store.read_stream(stream)) == sum(range(1, 31))

    async def test_an_older_snapshot_never_replaces_a_newer_one(
        self, store: EventStore, unique: str
    ) -> None:
        stream = f"game-{unique}"
        assert await store.load_snapshot(stream) is None
        await store.save_snapshot(Snapshot(stream, 10, "Total", b"10", schema_version=2))
        await store.save_snapshot(Snapshot(stream, 5, "Total", b"5"))
        assert await store.load_snapshot(stream) == Snapshot(stream, 10, "Total", b"10", 2)
        await store.save_snapshot(Snapshot(stream, 12, "Total", b"12"))
        assert await store.load_snapshot(stream) == Snapshot(stream, 12, "Total", b"12", 1)
