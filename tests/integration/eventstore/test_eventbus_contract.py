"""One contract, two buses: every test runs on the in-memory bus and on NATS JetStream."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from parlor.eventstore import (
    Bus,
    InMemoryBus,
    JetStreamBus,
    Metadata,
    RecordedEvent,
    Subjects,
)
from parlor.eventstore.bus import ForeignDuplicate, event_headers, is_id_of, redelivery_id


@pytest.fixture(
    params=["memory", pytest.param("jetstream", marks=pytest.mark.integration)],
)
async def bus(
    request: pytest.FixtureRequest, unique: str, scratch_stream_name: str
) -> AsyncIterator[Bus]:
    subjects = Subjects(prefix=f"t{unique}.events", stream=scratch_stream_name)
    if request.param == "memory":
        yield InMemoryBus(subjects)
        return
    js = await JetStreamBus.connect(request.getfixturevalue("nats_url"), subjects)
    await js.ensure_streams()
    try:
        yield js
    finally:
        await js.js.delete_stream(subjects.stream)
        await js.close()


def event(stream_id: str, version: int, kind: str = "DiscDropped") -> RecordedEvent:
    return RecordedEvent(
        stream_id=stream_id,
        version=version,
        position=100 + version,
        type=kind,
        data=f"{stream_id}:{version}".encode(),
        schema_version=2,
        metadata=Metadata(command_id="c", actor="p1", correlation_id="m", extra={"k": "v"}),
        recorded_at=datetime(2026, 11, 30, 3, 0, 0, 123456, tzinfo=UTC),
    )


async def fetch_all(sub: object, expected: int, max_wait: float = 5.0) -> list[object]:
    got: list[object] = []
    deadline = asyncio.get_running_loop().time() + max_wait
    while len(got) < expected and asyncio.get_running_loop().time() < deadline:
        got.extend(await sub.fetch(expected - len(got), max_wait=0.5))  # type: ignore[attr-defined]
    return got


class TestEventBusContract:
    async def test_event_travels_as_payload_bytes_with_metadata_in_headers(self, bus: Bus) -> None:
        sent = event("connect4x4-g1", 1)
        assert await bus.publish_event(sent)
        sub = await bus.subscribe("reader", bus.subjects.all())
        (got,) = await fetch_all(sub, 1)
        assert got.data == sent.data  # type: ignore[attr-defined]
        assert got.subject == f"{bus.subjects.prefix}.connect4x4.g1.DiscDropped"  # type: ignore[attr-defined]
        assert got.headers["Nats-Msg-Id"] == "connect4x4-g1:1"  # type: ignore[attr-defined]
        assert got.headers["Parlor-Schema-Version"] == "2"  # type: ignore[attr-defined]
        assert got.event() == sent  # type: ignore[attr-defined]
        assert got.message_id == "connect4x4-g1:1"  # type: ignore[attr-defined]

    async def test_publishing_the_same_event_twice_stores_it_once(self, bus: Bus) -> None:
        assert await bus.publish_event(event("upwords-g1", 1))
        assert not await bus.publish_event(event("upwords-g1", 1))
        assert await bus.publish_event(event("upwords-g1", 2))
        sub = await bus.subscribe("reader", bus.subjects.all())
        got = await fetch_all(sub, 3, max_wait=1.5)
        assert [g.message_id for g in got] == ["upwords-g1:1", "upwords-g1:2"]  # type: ignore[attr-defined]

    async def test_a_duplicate_that_is_not_the_event_is_a_foreign_duplicate(self, bus: Bus) -> None:
        real = event("upwords-g1", 2)
        subject = bus.subjects.for_event(real)
        # A forger's message under the id the event will have, and one with its very headers.
        assert await bus.publish(subject, b"forged", message_id=real.message_id)
        with pytest.raises(ForeignDuplicate) as taken:
            await bus.publish_event(real)
        assert (taken.value.message_id, taken.value.found) == (real.message_id, "another message")
        assert taken.value.sequence == 1
        lookalike = event("upwords-g1", 3)
        assert await bus.publish(subject, b"not the payload", headers=event_headers(lookalike))
        with pytest.raises(ForeignDuplicate):
            await bus.publish_event(lookalike)
        # Under its redelivery id it is new once, then a duplicate that is really it.
        assert await bus.publish_event(real, message_id=redelivery_id(real))
        assert not await bus.publish_event(real, message_id=redelivery_id(real))
        assert redelivery_id(real) != redelivery_id(real, 2)
        assert is_id_of(redelivery_id(real), real)
        assert not is_id_of(redelivery_id(real), lookalike)
        sub = await bus.subscribe("reader", bus.subjects.all())
        got = await fetch_all(sub, 4, max_wait=1.5)
        assert [g.data for g in got] == [b"forged", b"not the payload", real.data]  # type: ignore[attr-defined]
        assert got[2].event() == real  # type: ignore[attr-defined]

    async def test_consumers_filter_by_category_game_and_event_type(self, bus: Bus) -> None:
        await bus.publish_event(event("upwords-g1", 1, "TilesPlaced"))
        await bus.publish_event(event("takefour-g2", 1, "CardTaken"))
        await bus.publish_event(event("upwords-g3", 1, "GameFinished"))
        by_game = await bus.subscribe("upwords", bus.subjects.category("upwords"))
        assert [g.message_id for g in await fetch_all(by_game, 2)] == [  # type: ignore[attr-defined]
            "upwords-g1:1",
            "upwords-g3:1",
        ]
        one = await bus.subscribe("one", bus.subjects.stream_of("takefour-g2"))
        assert [g.message_id for g in await fetch_all(one, 1)] == ["takefour-g2:1"]  # type: ignore[attr-defined]
        finished = await bus.subscribe("fin", f"{bus.subjects.prefix}.*.*.GameFinished")
        assert [g.message_id for g in await fetch_all(finished, 1)] == ["upwords-g3:1"]  # type: ignore[attr-defined]

    async def test_unacked_message_is_redelivered_after_ack_wait_and_acked_one_is_not(
        self, bus: Bus
    ) -> None:
        await bus.publish_event(event("upwords-g1", 1))
        await bus.publish_event(event("upwords-g1", 2))
        sub = await bus.subscribe("slow", bus.subjects.all(), ack_wait=0.5)
        first, _second = await fetch_all(sub, 2)
        await first.ack()  # type: ignore[attr-defined]
        # ``second`` is never acked: the consumer "crashed".
        await sub.close()
        again = await bus.subscribe("slow", bus.subjects.all(), ack_wait=0.5)
        (redelivered,) = await fetch_all(again, 1)
        assert redelivered.message_id == "upwords-g1:2"  # type: ignore[attr-defined]
        await redelivered.ack()  # type: ignore[attr-defined]
        assert await fetch_all(again, 1, max_wait=1.0) == []

    async def test_nak_asks_for_redelivery(self, bus: Bus) -> None:
        await bus.publish_event(event("upwords-g1", 1))
        sub = await bus.subscribe("naker", bus.subjects.all())
        (first,) = await fetch_all(sub, 1)
        await first.nak()  # type: ignore[attr-defined]
        (again,) = await fetch_all(sub, 1)
        assert again.message_id == "upwords-g1:1"  # type: ignore[attr-defined]
        assert again.delivery_count == 2  # type: ignore[attr-defined]

    async def test_plain_messages_deduplicate_by_message_id_and_carry_no_event(
        self, bus: Bus
    ) -> None:
        subject = f"{bus.subjects.prefix}.matchmaking.q1.Ping"
        assert await bus.publish(subject, b"hi", headers={"X": "1"}, message_id="ping-1")
        assert not await bus.publish(subject, b"hi", message_id="ping-1")
        sub = await bus.subscribe("pings", subject)
        (got,) = await fetch_all(sub, 1)
        assert got.event() is None  # type: ignore[attr-defined]
        assert got.message_id == "ping-1"  # type: ignore[attr-defined]
        assert got.headers["X"] == "1"  # type: ignore[attr-defined]

    async def test_check_stream_names_the_stream_and_the_last_event_on_a_subject(
        self, bus: Bus
    ) -> None:
        empty = await bus.check_stream(bus.subjects.category("upwords"))
        assert (empty.last_position, empty.made) == (0, False)
        await bus.publish_event(event("connect4x4-a", 1))
        await bus.publish_event(event("upwords-b", 2))
        await bus.publish_event(event("connect4x4-a", 3))
        c4 = await bus.check_stream(bus.subjects.category("connect4x4"))
        up = await bus.check_stream(bus.subjects.category("upwords"))
        assert (c4.last_position, up.last_position) == (103, 102)
        assert c4.created == up.created == empty.created  # the same stream all along

    async def test_check_stream_gives_the_last_message_and_message_before_the_ones_under_it(
        self, bus: Bus
    ) -> None:
        c4 = bus.subjects.category("connect4x4")
        first = event("connect4x4-a", 1)
        await bus.publish_event(first)
        await bus.publish_event(event("upwords-b", 2))
        # Anyone may claim any position: check_stream hands over the message, not a number.
        await bus.publish(f"{bus.subjects.prefix}.connect4x4.a.X", b"x", {"Parlor-Position": "x"})
        check = await bus.check_stream(c4)
        assert check.last is not None
        assert (check.last.sequence, check.last.data, check.last_position) == (3, b"x", 0)
        under = await bus.message_before(c4, check.last.sequence, 2)
        assert under is not None
        assert (under.sequence, under.subject, under.data) == (
            1,
            bus.subjects.for_event(first),
            first.data,
        )
        assert dict(under.headers) == event_headers(first)
        assert under.claimed_position == first.position
        assert await bus.message_before(c4, check.last.sequence, 1) is None  # only upwords-b
        assert await bus.message_before(c4, under.sequence, 10) is None  # nothing under it

    async def test_a_message_over_the_max_payload_is_refused_not_retried(self, bus: Bus) -> None:
        from parlor.core.errors import InvalidArgument

        huge = dataclasses.replace(event("connect4x4-big", 1), data=b"x" * (1024 * 1024 + 1))
        with pytest.raises(InvalidArgument) as refused:
            await bus.publish_event(huge)
        assert refused.value.reason == "BUS_REFUSED"
        assert await bus.publish_event(event("connect4x4-big", 2))  # the bus is still fine

    async def test_a_lost_stream_is_missing_until_check_stream_makes_it_anew(
        self, bus: Bus
    ) -> None:
        from parlor.core.errors import Unavailable

        await bus.publish_event(event("connect4x4-lost", 1))
        before = await bus.check_stream(bus.subjects.all())
        if isinstance(bus, InMemoryBus):
            bus.wipe()
        else:
            assert isinstance(bus, JetStreamBus)
            await bus.js.delete_stream(bus.subjects.stream)
            await asyncio.sleep(0.01)  # a later creation time than the first stream's
        with pytest.raises(Unavailable) as missing:
            await bus.publish_event(event("connect4x4-lost", 2))
        assert missing.value.reason == "STREAM_MISSING"
        after = await bus.check_stream(bus.subjects.all())
        assert (after.made, after.last_position) == (True, 0)
        assert after.created != before.created
        assert await bus.publish_event(event("connect4x4-lost", 1))  # a new dedupe window too
        assert (await bus.check_stream(bus.subjects.all())).made is False
