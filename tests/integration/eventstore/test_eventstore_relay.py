"""The relay and the inbox against real PostgreSQL and NATS: crashes, outages, replicas."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import nats
import nats.js.errors
import psycopg
import pytest
from nats.js.api import StorageType, StreamConfig
from prometheus_client import REGISTRY
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from parlor.eventstore import (
    NO_STREAM,
    Delivery,
    Inbox,
    InMemoryBus,
    JetStreamBus,
    Metadata,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
    Relay,
    Subjects,
)
from parlor.eventstore.events import NO_METADATA
from parlor.eventstore.jetstream import DEFAULT_MAX_AGE, DUPLICATE_WINDOW
from parlor.eventstore.partitions import partition_of
from parlor.eventstore.relay import Lane
from parlor.runtime.outbox import category_lane, category_relay

pytestmark = pytest.mark.integration

Eventually = Callable[..., Awaitable[None]]


class Crash(BaseException):
    """A process dying: nothing after it runs, no ``except Exception`` catches it."""


@pytest.fixture(params=[1, 4], ids=["P1", "P4"])
async def store(
    fresh_url: str, request: pytest.FixtureRequest
) -> AsyncIterator[PostgresEventStore]:
    """The store of one partition, and split into four: the relay's guarantees hold for both."""
    pg = PostgresEventStore(fresh_url, poll_interval=0.5, partitions=request.param)
    try:
        yield pg
    finally:
        await pg.close()


@pytest.fixture
def subjects(unique: str, scratch_stream_name: str) -> Subjects:
    return Subjects(prefix=f"t{unique}.events", stream=scratch_stream_name)


@pytest.fixture
async def bus(nats_url: str, subjects: Subjects) -> AsyncIterator[JetStreamBus]:
    js = await JetStreamBus.connect(nats_url, subjects)
    await js.ensure_streams()
    try:
        yield js
    finally:
        await js.js.delete_stream(subjects.stream)
        await js.close()


def relay(store: PostgresEventStore, bus: JetStreamBus, **options: Any) -> Relay:
    options.setdefault("poll_interval", 0.5)
    options.setdefault("takeover_interval", 0.1)
    return Relay(store, bus, name="games", **options)


async def play(store: PostgresEventStore, games: int, moves: int, tag: str = "g") -> int:
    """Append ``moves`` events to each of ``games`` streams; how many events in all."""
    for g in range(games):
        stream = f"connect4x4-{tag}{g}"
        base = await store.stream_version(stream)
        for m in range(moves):
            await store.append(stream, [NewEvent("DiscDropped", f"{g}:{m}".encode())], base + m)
    return games * moves


async def stored(bus: JetStreamBus) -> int:
    info = await bus.js.stream_info(bus.subjects.stream)
    return int(info.state.messages)


async def published_ids(bus: JetStreamBus, count: int) -> list[str]:
    sub = await bus.subscribe("audit", bus.subjects.all())
    ids: list[str] = []
    for _ in range(50):
        for d in await sub.fetch(count - len(ids) or 1, max_wait=0.2):
            ids.append(d.message_id)
            await d.ack()
        if len(ids) >= count:
            break
    await sub.close()
    return ids


async def in_commit_order(
    store: PostgresEventStore, ids: list[str], keep: Callable[[RecordedEvent], bool] = bool
) -> list[str]:
    """What ``ids`` (message ids as published) must be: every committed event's once, in
    commit order. With one partition, the global order; with P > 1, each partition's events
    in that partition's order (a stream lives in one), the partitions interleaved as ``ids``
    interleaves them (each partition is relayed under a lease of its own)."""
    everything = await store.read_all(1, limit=1000)
    if store.partitions == 1:
        return [e.message_id for e in everything if keep(e)]
    orders = [
        [e.message_id for e in await store.read_partition(p, 1, 1000) if keep(e)]
        for p in range(store.partitions)
    ]
    home = {message_id: p for p, order in enumerate(orders) for message_id in order}
    queues = [iter(order) for order in orders]
    # Each id in ``ids`` is replaced by the next of its partition's order: equal to ``ids``
    # only if each partition's ids come once each, in order, and no id is unknown.
    expected = [next(queues[home[i]], "") if i in home else "" for i in ids]
    return expected + [i for q in queues for i in q]


async def test_relay_publishes_every_committed_event_once_in_commit_order(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    total = await play(store, games=3, moves=10)
    r = relay(store, bus)
    r.start()
    try:
        await eventually(lambda: r.published == total)
        more = await play(store, games=1, moves=5, tag="late")
        await eventually(lambda: r.published == total + more)
    finally:
        await r.stop()
    assert await stored(bus) == total + more
    everything = await store.read_all(1, limit=1000)
    ids = await published_ids(bus, total + more)
    assert ids == await in_commit_order(store, ids)
    assert await r.checkpoint() == everything[-1].position


async def test_relay_writes_its_checkpoint_once_an_interval_and_when_it_stops(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    first = await play(store, games=1, moves=3)
    r = relay(store, bus, checkpoint_interval=3600.0)
    r.start()
    try:
        await eventually(lambda: r.published == first)
        await eventually_async(r.checkpoint, first)  # the first save is due at once
        more = await play(store, games=1, moves=4, tag="late")
        await eventually(lambda: r.published == first + more)
        assert await r.checkpoint() == first, "the next save is not due for an hour"
    finally:
        await r.stop()
    assert await r.checkpoint() == first + more, "a relay that stops saves what it handled"

    second = relay(store, bus)
    second.start()
    try:
        await eventually(lambda: second.is_leader)
        # it goes on from there: each partition's part from its partition's head
        assert [part.checkpoint for part in parts(second, "games")] == list(
            await store.head_positions()
        )
    finally:
        await second.stop()
    assert await stored(bus) == first + more


async def test_relay_crash_after_publishing_before_checkpoint_publishes_nothing_twice(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    total = await play(store, games=2, moves=10)

    class CrashBeforeCheckpoint(Relay):
        async def save_checkpoint(self, conn: Any, position: int) -> None:
            raise Crash

    first = CrashBeforeCheckpoint(store, bus, name="games", takeover_interval=0.1)
    first.start()
    assert first.task is not None
    with pytest.raises(Crash):
        await asyncio.wait_for(first.task, 10)
    assert first.published == total
    assert await first.checkpoint() == 0  # published everything, remembered nothing

    second = relay(store, bus)
    second.start()
    try:
        await eventually(lambda: second.published == total)
        await eventually(lambda: second.is_leader)
    finally:
        await second.stop()
    assert await stored(bus) == total  # JetStream dropped the replays by Nats-Msg-Id
    assert await second.checkpoint() == total


async def test_relay_crash_midway_through_publishing_resumes_and_publishes_each_once(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    total = await play(store, games=2, moves=10)
    sent = 0

    class DyingBus:
        """Dies before the 8th publish, like a relay process killed between two events."""

        subjects = bus.subjects
        connections = bus.connections
        closed = False
        check_stream = bus.check_stream

        async def publish_event(self, event: RecordedEvent) -> bool:
            nonlocal sent
            if sent == 7:
                raise Crash
            sent += 1
            return await bus.publish_event(event)

    first = Relay(store, DyingBus(), name="games", takeover_interval=0.1)  # type: ignore[arg-type]
    first.start()
    assert first.task is not None
    with pytest.raises(Crash):
        await asyncio.wait_for(first.task, 10)
    assert await stored(bus) == 7

    second = relay(store, bus)
    second.start()
    try:
        await eventually(lambda: second.published == total)
    finally:
        await second.stop()
    assert await stored(bus) == total
    ids = await published_ids(bus, total)
    assert ids == await in_commit_order(store, ids)


async def test_games_go_on_while_nats_is_down_and_everything_is_published_when_it_returns(
    store: PostgresEventStore, private_nats: Any, subjects: Subjects, eventually: Eventually
) -> None:
    bus = await JetStreamBus.connect(private_nats.url, subjects, publish_timeout=0.5)
    await bus.ensure_streams()
    r = relay(store, bus, max_backoff=0.2)
    r.start()
    try:
        before = await play(store, games=1, moves=5, tag="before")
        await eventually(lambda: r.published == before)

        private_nats.stop()
        during = await play(store, games=4, moves=5, tag="during")  # appends still succeed
        await asyncio.sleep(0.5)
        assert await store.head_position() == before + during
        assert r.published == before  # nothing got through while NATS was away

        private_nats.start()
        await eventually(lambda: r.published >= before + during, seconds=30)
        await eventually(lambda: r.is_leader)
        for _ in range(100):
            if await r.checkpoint() == before + during:
                break
            await asyncio.sleep(0.1)
        assert await r.checkpoint() == before + during
        assert await stored(bus) == before + during
        ids = await published_ids(bus, before + during)
        assert ids == await in_commit_order(store, ids)
    finally:
        await r.stop()
        await bus.close()


async def test_two_relay_replicas_one_publishes_and_the_other_takes_over_when_it_stops(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    a, b = relay(store, bus), relay(store, bus)
    a.start()
    await eventually(lambda: a.is_leader)
    b.start()
    try:
        total = await play(store, games=2, moves=5)
        await eventually(lambda: a.published == total)
        await asyncio.sleep(0.3)
        assert not b.is_leader
        assert b.published == 0

        await a.stop()
        await eventually(lambda: b.is_leader)
        more = await play(store, games=2, moves=5, tag="after")
        await eventually(lambda: b.published >= more)
    finally:
        await a.stop()
        await b.stop()
    assert await stored(bus) == total + more
    ids = await published_ids(bus, total + more)
    assert ids == await in_commit_order(store, ids)


async def test_a_replica_takes_over_when_the_leaders_database_session_dies(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    a, b = relay(store, bus), relay(store, bus)
    a.start()
    await eventually(lambda: a.is_leader)
    b.start()
    try:
        with psycopg.connect(store.url, autocommit=True) as admin:
            # Kill the leader's relay session as a crash or a network cut would.
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid = %s",
                (a.session_pid,),
            ).fetchone()
        assert killed == (1,)
        total = await play(store, games=1, moves=5)
        for _ in range(200):
            if await stored(bus) == total and await a.checkpoint() == total:
                break
            await asyncio.sleep(0.05)
        await eventually(lambda: a.is_leader != b.is_leader)  # exactly one leads again
    finally:
        await a.stop()
        await b.stop()
    assert await stored(bus) == total
    assert await a.checkpoint() == total


async def test_redact_keeps_secret_events_off_the_bus_and_strips_secret_fields(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    await store.append(
        "upwords-g1",
        [
            NewEvent("GameCreated", b"public"),
            NewEvent("RackDrawn", b"AEINRST"),
            NewEvent("TilesPlaced", b"word|rack:QZ"),
        ],
        NO_STREAM,
    )

    def redact(event: RecordedEvent) -> RecordedEvent | None:
        if event.type == "RackDrawn":
            return None
        return dataclasses.replace(event, data=event.data.split(b"|")[0])

    r = relay(store, bus, redact=redact)
    r.start()
    try:
        await eventually(lambda: r.published == 2)
        for _ in range(50):
            if await r.checkpoint() == 3:
                break
            await asyncio.sleep(0.05)
    finally:
        await r.stop()
    sub = await bus.subscribe("audit", bus.subjects.all())
    got = await sub.fetch(10, max_wait=0.5)
    assert [(d.message_id, d.data) for d in got] == [
        ("upwords-g1:1", b"public"),
        ("upwords-g1:3", b"word"),
    ]
    assert all(b"AEINRST" not in d.data and "AEINRST" not in d.subject for d in got)
    assert await r.checkpoint() == 3


class CrashOnAck:
    """A delivery whose consumer dies right after its transaction committed, before the ack."""

    def __init__(self, inner: Delivery) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def message_id(self) -> str:
        return self._inner.message_id

    @property
    def headers(self) -> Mapping[str, str]:
        return self._inner.headers

    async def ack(self) -> None:
        raise Crash


async def test_consumer_crashing_before_ack_gets_the_message_again_and_applies_it_once(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE tally (stream_id text PRIMARY KEY, moves int)"))
    await play(store, games=1, moves=3)
    r = relay(store, bus)
    r.start()
    await eventually(lambda: r.published == 3)
    await r.stop()

    async def count_move(conn: AsyncConnection, delivery: Delivery) -> None:
        event = delivery.event()
        assert event is not None
        await conn.execute(
            text(
                "INSERT INTO tally VALUES (:s, 1) "
                "ON CONFLICT (stream_id) DO UPDATE SET moves = tally.moves + 1"
            ),
            {"s": event.stream_id},
        )

    inbox = Inbox(store.engine, "scoring")
    sub = await bus.subscribe("scoring", bus.subjects.all(), ack_wait=0.5)
    first = await sub.fetch(3, max_wait=2)
    assert len(first) == 3
    assert await inbox.handle(first[0], count_move)
    with pytest.raises(Crash):
        await inbox.handle(CrashOnAck(first[1]), count_move)  # type: ignore[arg-type]

    async def broken(conn: AsyncConnection, delivery: Delivery) -> None:
        await count_move(conn, delivery)
        raise RuntimeError("crash inside the handler, before commit")

    with pytest.raises(RuntimeError):
        await inbox.handle(first[2], broken)
    await sub.close()

    again = await bus.subscribe("scoring", bus.subjects.all(), ack_wait=0.5)
    redelivered = await again.fetch(3, max_wait=3)
    assert sorted(d.message_id for d in redelivered) == ["connect4x4-g0:2", "connect4x4-g0:3"]
    outcomes = {d.message_id: await inbox.handle(d, count_move) for d in redelivered}
    assert outcomes == {"connect4x4-g0:2": False, "connect4x4-g0:3": True}
    assert await again.fetch(3, max_wait=1.0) == []
    async with store.engine.connect() as conn:
        moves = (await conn.execute(text("SELECT moves FROM tally"))).scalar()
    assert moves == 3
    assert await inbox.seen("connect4x4-g0:2")


async def test_inbox_loop_retries_a_failing_handler_and_applies_every_event_once(
    store: PostgresEventStore, eventually: Eventually
) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE seen_moves (message_id text)"))
    bus = InMemoryBus()
    for version in range(1, 6):
        recorded = RecordedEvent(
            "connect4x4-loop",
            version,
            version,
            "DiscDropped",
            b"",
            1,
            Metadata(),
            datetime.now(UTC),
        )
        await bus.publish_event(recorded)
        await bus.publish_event(recorded)  # a duplicate publish changes nothing either
    failures = {"connect4x4-loop:3": 2}

    async def record(conn: AsyncConnection, delivery: Delivery) -> None:
        await conn.execute(text("INSERT INTO seen_moves VALUES (:m)"), {"m": delivery.message_id})
        if failures.get(delivery.message_id, 0) > 0:
            failures[delivery.message_id] -= 1
            raise RuntimeError("flaky handler")

    async def rows() -> list[str]:
        async with store.engine.connect() as conn:
            found = await conn.execute(text("SELECT message_id FROM seen_moves ORDER BY 1"))
            return [r[0] for r in found]

    stop = asyncio.Event()
    inbox = Inbox(store.engine, "loop")
    sub = await bus.subscribe("loop", bus.subjects.all(), ack_wait=5)
    loop = asyncio.create_task(inbox.run(sub, record, fetch_wait=0.05, retry_delay=0.05, stop=stop))
    try:
        await eventually(lambda: failures["connect4x4-loop:3"] == 0)
        for _ in range(100):
            if len(await rows()) == 5:
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.wait_for(loop, 5)
    assert await rows() == [f"connect4x4-loop:{v}" for v in range(1, 6)]


async def test_a_consumer_appends_the_events_a_message_causes_in_the_inbox_transaction(
    store: PostgresEventStore,
) -> None:
    bus = InMemoryBus()
    await bus.publish(
        "parlor.events.matchmaking.m1.MatchFormed", b"seats", message_id="matchmaking-m1:1"
    )
    await bus.publish(
        "parlor.events.matchmaking.m1.MatchFormed", b"seats", message_id="matchmaking-m1:1b"
    )

    async def create_game(conn: AsyncConnection, delivery: Delivery) -> None:
        await store.append(
            "connect4x4-m1",
            [NewEvent("GameCreated", delivery.data)],
            NO_STREAM,
            command_id="match:m1",
            connection=conn,
        )

    inbox = Inbox(store.engine, "connect4x4-from-matches")
    sub = await bus.subscribe("c4", "parlor.events.matchmaking.>", ack_wait=0.2)
    first, second = await sub.fetch(2, max_wait=1)
    assert await inbox.handle(first, create_game)
    assert await inbox.handle(second, create_game)  # another message, same command: no-op
    assert await inbox.handle(first, create_game) is False
    assert [e.type for e in await store.read_stream("connect4x4-m1")] == ["GameCreated"]


async def test_relay_is_woken_by_each_commit_not_by_its_safety_poll(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    r = relay(store, bus, poll_interval=60.0)  # the poll alone would take a minute
    r.start()
    try:
        await eventually(lambda: r.is_leader)
        await asyncio.sleep(0.2)  # now idle, waiting on the doorbell
        for n in range(1, 4):
            await play(store, games=1, moves=1, tag=f"w{n}")
            await eventually(lambda n=n: r.published == n, seconds=5)
    finally:
        await r.stop()


async def test_subscription_survives_losing_its_listen_connection(
    store: PostgresEventStore, eventually: Eventually
) -> None:
    seen: list[str] = []

    async def follow() -> None:
        async for event in store.subscribe_all(1):
            seen.append(event.stream_id)

    follower = asyncio.create_task(follow())
    try:
        await play(store, games=1, moves=1, tag="before")
        await eventually(lambda: seen == ["connect4x4-before0"])
        with psycopg.connect(store.url, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN%%'"
            ).fetchone()
        assert killed == (1,)
        await play(store, games=1, moves=1, tag="after")
        await eventually(lambda: seen == ["connect4x4-before0", "connect4x4-after0"])
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower


# -- one relay for several categories ---------------------------------------------------------
# A platform process hosting several games runs one relay with a lane per category; a
# service run alone relays its own category's lane. Lanes keep the per-category leases and
# checkpoints the per-category relays had, so either can follow the other.


def fast(store: PostgresEventStore, bus: JetStreamBus, lanes: list[Lane]) -> Relay:
    return Relay(
        store, bus, lanes=lanes, poll_interval=0.2, takeover_interval=0.1, verify_interval=0.5
    )


def hidden(event_type: str, data: bytes) -> tuple[str, bytes] | None:
    """Upwords' stand-in redaction: the payload never leaves; Secret events not at all."""
    return None if event_type == "Secret" else (event_type, b"public")


def shared(store: PostgresEventStore, bus: JetStreamBus) -> Relay:
    lanes = [category_lane("connect4x4"), category_lane("upwords", hidden)]
    return fast(store, bus, lanes)


async def append_to(
    store: PostgresEventStore, category: str, moves: int, kind: str = "Moved"
) -> None:
    stream = f"{category}-g1"
    base = await store.stream_version(stream)
    for m in range(moves):
        await store.append(stream, [NewEvent(kind, f"{base + m}".encode())], base + m)


async def stream_messages(bus: JetStreamBus) -> list[Any]:
    """Every message on the stream (``subject``, ``headers``, ``data``), in stream order."""
    info = await bus.js.stream_info(bus.subjects.stream)
    found = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        try:
            found.append(await bus.js.get_msg(bus.subjects.stream, seq))
        except nats.js.errors.NotFoundError:
            continue  # deleted
    return found


async def on_stream(bus: JetStreamBus) -> list[tuple[str, bytes]]:
    """(Nats-Msg-Id, data) of every message on the stream, in stream order."""
    return [((m.headers or {})["Nats-Msg-Id"], m.data or b"") for m in await stream_messages(bus)]


async def test_one_relay_publishes_each_hosted_category_once_in_order_through_its_own_public(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    await append_to(store, "connect4x4", 3)
    await append_to(store, "upwords", 2)
    await append_to(store, "upwords", 1, kind="Secret")
    await append_to(store, "chess", 4)  # hosted elsewhere: not this relay's
    relay = shared(store, bus)
    relay.start()
    try:
        await eventually(lambda: relay.published == 5)
        await append_to(store, "connect4x4", 1)
        await eventually(lambda: relay.published == 6)
        await append_to(store, "chess", 2)
        head = await store.head_position()
        # read up to the head, though the last events are another category's
        await eventually_async(lambda: relay.checkpoints(), {"connect4x4": head, "upwords": head})
    finally:
        await relay.stop()
    found = await on_stream(bus)
    ids = [i for i, _ in found]
    assert ids == await in_commit_order(
        store, ids, lambda e: e.stream_id != "chess-g1" and e.type != "Secret"
    )
    assert [d for i, d in found if i.startswith("upwords")] == [b"public", b"public"]
    assert [d for i, d in found if i.startswith("connect4x4")] == [b"0", b"1", b"2", b"3"]
    assert published_by(relay, "connect4x4") == 4
    assert published_by(relay, "upwords") == 2


def parts(relay: Relay, lane: str) -> list[Lane]:
    """The lane's part in each of the store's partitions (one, itself, with P = 1)."""
    return [relay.lane_for(lane, p) for p in range(relay.partitions)]


def home(relay: Relay, lane: str, stream_id: str) -> Lane:
    """The lane's part that publishes ``stream_id``'s events: its partition's."""
    return relay.lane_for(lane, partition_of(stream_id, relay.partitions))


def holds(relay: Relay, lane: str) -> bool:
    """Whether ``relay`` leads ``lane`` in every partition."""
    return all(part.held for part in parts(relay, lane))


def published_by(relay: Relay, lane: str) -> int:
    return sum(part.published for part in parts(relay, lane))


async def eventually_async(
    read: Callable[[], Awaitable[object]], expected: object, seconds: float = 10.0
) -> None:
    for _ in range(int(seconds / 0.1)):
        if await read() == expected:
            return
        await asyncio.sleep(0.1)
    assert await read() == expected


async def test_a_shared_relay_goes_on_from_each_category_relays_checkpoint(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    """Per-category relays then one shared relay: nothing missed, nothing published again."""
    await append_to(store, "connect4x4", 5)
    await append_to(store, "upwords", 3)
    alone = [category_relay(store, bus, "connect4x4"), category_relay(store, bus, "upwords")]
    for relay in alone:
        relay.start()
    await eventually(lambda: sum(r.published for r in alone) == 8)
    for relay in alone:
        await relay.stop()
    await append_to(store, "upwords", 2)
    await append_to(store, "connect4x4", 1)

    relay = shared(store, bus)
    relay.start()
    try:
        await eventually(lambda: relay.published == 3)
        await asyncio.sleep(0.5)  # time to publish more, if it were going to
        assert relay.published == 3
    finally:
        await relay.stop()
    assert len(await on_stream(bus)) == 11
    # and back: a service run alone again starts where the shared relay left its lane
    await append_to(store, "connect4x4", 2)
    back = category_relay(store, bus, "connect4x4")
    back.start()
    try:
        await eventually(lambda: back.published == 2)
        await asyncio.sleep(0.5)
        assert back.published == 2
    finally:
        await back.stop()
    assert len(await on_stream(bus)) == 13


async def test_a_category_another_replica_leads_is_left_to_it_until_it_stops(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    alone = fast(store, bus, [category_lane("connect4x4")])
    alone.start()
    await eventually(lambda: alone.is_leader)
    relay = shared(store, bus)
    relay.start()
    try:
        await eventually(lambda: holds(relay, "upwords"))
        assert not any(lane.held for lane in parts(relay, "connect4x4"))
        await append_to(store, "connect4x4", 3)
        await append_to(store, "upwords", 2)
        await eventually(lambda: alone.published == 3 and relay.published == 2)
        assert published_by(relay, "connect4x4") == 0
        await alone.stop()  # hands its lease over at once
        await eventually(lambda: holds(relay, "connect4x4"))
        await append_to(store, "connect4x4", 2)
        await eventually(lambda: published_by(relay, "connect4x4") == 2)
    finally:
        await relay.stop()
        await alone.stop()
    assert len(await on_stream(bus)) == 7


async def test_a_relay_whose_bus_is_closed_stops_by_itself_and_hands_its_lease_over(
    store: PostgresEventStore,
    bus: JetStreamBus,
    nats_url: str,
    subjects: Subjects,
    eventually: Eventually,
) -> None:
    # A relay left running when its process closed the bus (a cancellation swallowed on the
    # way out) must not lead on: it would renew its lease for good and publish nothing.
    own = await JetStreamBus.connect(nats_url, subjects)
    left = relay(store, own, lease_seconds=60.0)  # not taken over by its running out
    left.start()
    await eventually(lambda: left.is_leader)
    await own.close()
    assert left.task is not None
    await asyncio.wait_for(left.task, 10)  # it returns, no cancellation needed
    assert not left.is_leader
    after = relay(store, bus)
    after.start()
    try:
        await eventually(lambda: after.is_leader)  # handed over, long before 60 s
        total = await play(store, games=1, moves=3)
        await eventually(lambda: after.published == total)
    finally:
        await after.stop()


def test_a_relay_is_of_categories_or_of_everything(bus: JetStreamBus) -> None:
    store = PostgresEventStore("postgresql://localhost/unused")
    relay = Relay(store, bus, lanes=[category_lane("connect4x4")])
    with pytest.raises(ValueError, match="one of everything"):
        relay.add_lane(Lane("all"))
    with pytest.raises(ValueError, match="already"):
        relay.add_lane(category_lane("connect4x4"))
    assert relay.lanes["connect4x4"].subject == bus.subjects.category("connect4x4")


def test_redaction_keeps_the_event_when_nothing_changes() -> None:
    event = RecordedEvent("upwords-g1", 1, 1, "Moved", b"x", 1, NO_METADATA, datetime.now(UTC))
    assert category_lane("upwords").redact(event) is event
    changed = category_lane("upwords", hidden).redact(event)
    assert changed == dataclasses.replace(event, data=b"public")


# -- an event shown under another type ---------------------------------------------------------
# Take Four shows a joker swap to others as a move: its own type, on the subject and in
# Parlor-Event-Type, would tell everyone that a joker is now in that hand. The stand-ins:


def as_stored(event_type: str, data: bytes) -> tuple[str, bytes] | None:
    """A redaction that keeps each type (as Take Four's did before): only the seat is shown."""
    return event_type, data.split(b"|")[0]


def swaps_as_moves(event_type: str, data: bytes) -> tuple[str, bytes] | None:
    """A swap is shown as a move; only the seat (before the ``|``) is shown of either."""
    return ("Moved" if event_type == "Swapped" else event_type), data.split(b"|")[0]


def test_a_redaction_may_show_an_event_under_another_type() -> None:
    event = RecordedEvent(
        "takefour-g1", 2, 7, "Swapped", b"0|joker", 1, NO_METADATA, datetime.now(UTC)
    )
    shown = category_lane("takefour", swaps_as_moves).redact(event)
    assert shown == dataclasses.replace(event, type="Moved", data=b"0")
    assert Subjects().for_event(shown) == "parlor.events.takefour.g1.Moved"
    assert shown.message_id == "takefour-g1:2"


async def append_swap(store: PostgresEventStore) -> None:
    """Seat 0 moves a tile, then swaps a joker (the last event: the one a lead checks)."""
    moves = [("Moved", b"0|cell"), ("Swapped", b"0|joker")]
    await store.append("takefour-g1", [NewEvent(t, d) for t, d in moves], NO_STREAM)


async def relay_takefour(
    store: PostgresEventStore, bus: JetStreamBus, public: Any, eventually: Eventually
) -> None:
    """A relay of the takefour lane through ``public``, run until it has published both."""
    r = fast(store, bus, [category_lane("takefour", public)])
    r.start()
    try:
        await eventually(lambda: r.published == 2)
    finally:
        await r.stop()


async def assert_the_next_leader_takes_the_swap_for_its_own(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    """A relay taking the lead checks the last message on its subjects (the swap) against
    the store: its own, so no forgery, no rebuild, nothing published again."""
    again = fast(store, bus, [category_lane("takefour", swaps_as_moves)])
    again.start()
    try:
        await eventually(lambda: home(again, "takefour", "takefour-g1").verified_position == 2)
    finally:
        await again.stop()
    assert (again.forgeries, again.rebuilds, again.published) == (0, 0, 0)


async def test_an_event_shown_as_another_type_goes_on_the_bus_as_that_type_under_its_own_id(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    """Subject, headers and payload of the swap are those of the same seat's move, but for
    the event's own id, version and position; a relay taking the lead checks the message
    against the store and believes it as its own (no forgery, no rebuild)."""
    await append_swap(store)
    await relay_takefour(store, bus, swaps_as_moves, eventually)
    move, swap = await stream_messages(bus)
    assert swap.subject == move.subject == f"{bus.subjects.prefix}.takefour.g1.Moved"
    assert swap.data == move.data == b"0"
    own = ("Nats-Msg-Id", "Parlor-Version", "Parlor-Position", "Parlor-Recorded-At")

    def shared(headers: Mapping[str, str]) -> dict[str, str]:
        return {k: v for k, v in headers.items() if k not in own}

    assert shared(swap.headers) == shared(move.headers)
    assert swap.headers["Parlor-Event-Type"] == "Moved"
    assert (swap.headers["Nats-Msg-Id"], swap.headers["Parlor-Version"]) == ("takefour-g1:2", "2")
    assert not any("Swapped" in text for text in (swap.subject, *swap.headers.values()))
    await assert_the_next_leader_takes_the_swap_for_its_own(store, bus, eventually)
    assert len(await stream_messages(bus)) == 2


async def test_an_event_shown_as_another_type_whose_id_was_taken_goes_under_its_redelivery_id(
    store: PostgresEventStore, bus: JetStreamBus, nats_url: str, eventually: Eventually
) -> None:
    """The forged-duplicate check and the redelivery id are of the message as shown: the swap
    reaches the stream as a move under ``takefour-g1:2:<digest>``, and the next leader's
    check takes that message for its own."""
    forger = await nats.connect(nats_url)
    try:
        await forger.jetstream().publish(
            f"{bus.subjects.prefix}.takefour.g1.Moved",
            b"forged",
            headers={"Nats-Msg-Id": "takefour-g1:2"},
        )
    finally:
        await forger.close()
    await append_swap(store)
    await relay_takefour(store, bus, swaps_as_moves, eventually)
    forged, move, swap = await stream_messages(bus)
    assert forged.data == b"forged"  # it stays, under the id it took
    assert swap.headers["Nats-Msg-Id"].startswith("takefour-g1:2:")
    assert (swap.subject, swap.data) == (move.subject, move.data)
    assert swap.headers["Parlor-Event-Type"] == "Moved"
    await assert_the_next_leader_takes_the_swap_for_its_own(store, bus, eventually)


async def test_a_message_a_release_before_published_under_the_stored_type_is_still_its_own(
    store: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    """After an upgrade that shows an event under another type, the swap the release before
    published as a swap is no forgery to the relay's check (no ERROR, no critical alert) and
    nothing is published again."""
    await append_swap(store)
    await relay_takefour(store, bus, as_stored, eventually)
    assert (await stream_messages(bus))[-1].headers["Parlor-Event-Type"] == "Swapped"
    await assert_the_next_leader_takes_the_swap_for_its_own(store, bus, eventually)
    assert len(await stream_messages(bus)) == 2


async def test_an_event_whose_id_a_forger_took_first_still_reaches_the_stream_and_is_reported(
    store: PostgresEventStore,
    bus: JetStreamBus,
    nats_url: str,
    eventually: Eventually,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="parlor.eventstore.relay")
    # Anyone who may publish on the subjects takes the id the game's second move will have.
    forger = await nats.connect(nats_url)
    try:
        ack = await forger.jetstream().publish(
            f"{bus.subjects.prefix}.connect4x4.g0.DiscDropped",
            b"forged",
            headers={"Nats-Msg-Id": "connect4x4-g0:2"},
        )
    finally:
        await forger.close()
    forged = {"relay": "games", "found": "another message"}
    forged_before = REGISTRY.get_sample_value("parlor_relay_forged_duplicates_total", forged) or 0
    await play(store, games=1, moves=3)
    real = (await store.read_stream("connect4x4-g0", 2, 2))[0]
    r = relay(store, bus)
    r.start()
    try:
        await eventually(lambda: r.published == 3)
    finally:
        await r.stop()
    found = await on_stream(bus)
    assert [data for _, data in found] == [
        b"forged",  # the forgery stays, under the id it took
        b"0:0",
        b"0:2",  # published in the same window, before the check
        b"0:1",  # the real event, under an id of its own
    ]
    assert [i for i, _ in found][:3] == ["connect4x4-g0:2", "connect4x4-g0:1", "connect4x4-g0:3"]
    assert found[3][0].startswith("connect4x4-g0:2:")
    # The forgery, the only message on the stream when the relay took the lead, was passed
    # over by its verify (a message that is no event of its) and then met as a duplicate.
    assert r.forgeries == 2
    forged_after = REGISTRY.get_sample_value("parlor_relay_forged_duplicates_total", forged)
    assert forged_after == forged_before + 1
    assert any(
        "connect4x4-g0:2" in m and f"position {real.position}" in m and f"sequence {ack.seq}" in m
        for m in caplog.messages
    )
    # A relay replaying it all (a crash before the checkpoint) adds nothing: the id the real
    # event went under is deterministic, and the stream's message of it is checked to be it.
    again = Relay(store, bus, name="games-replay", poll_interval=0.5, takeover_interval=0.1)
    again.start()
    try:
        await eventually(lambda: again.published == 3)
    finally:
        await again.stop()
    assert await on_stream(bus) == found
    # nothing new on the stream
    assert [part.published_position for part in parts(again, "games-replay")] == [0] * len(
        parts(again, "games-replay")
    )


async def forge(nats_url: str, subject: str, position: int, count: int = 1) -> None:
    """Publish ``count`` messages on ``subject`` claiming ``position``, as anyone may."""
    forger = await nats.connect(nats_url)
    try:
        for n in range(count):
            await forger.jetstream().publish(
                subject,
                b"forged",
                headers={
                    "Nats-Msg-Id": f"forged-{position}-{n}",
                    "Parlor-Stream": "connect4x4-g0",
                    "Parlor-Version": "99",
                    "Parlor-Position": str(position),
                    "Parlor-Event-Type": "DiscDropped",
                },
            )
    finally:
        await forger.close()


async def test_a_forged_high_position_does_not_hide_a_lost_event_from_verify(
    store: PostgresEventStore,
    bus: JetStreamBus,
    nats_url: str,
    eventually: Eventually,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="parlor.eventstore.relay")
    await play(store, games=1, moves=3)
    first = relay(store, bus)
    first.start()
    try:
        await eventually(lambda: first.published == 3)
    finally:
        await first.stop()
    # The stream loses the last event, and a forger covers it with a far higher position.
    found = await on_stream(bus)
    assert [data for _, data in found] == [b"0:0", b"0:1", b"0:2"]
    await bus.js.delete_msg(bus.subjects.stream, 3)
    subject = f"{bus.subjects.prefix}.connect4x4.g0.DiscDropped"
    await forge(nats_url, subject, 10_000)
    forged = {"relay": "games", "found": "forged position"}
    forged_before = REGISTRY.get_sample_value("parlor_relay_forged_duplicates_total", forged) or 0
    r = relay(store, bus)  # takes the lead, so verifies the stream first
    r.start()
    try:
        await eventually(lambda: r.rebuilds == 1 and r.published >= 1)
    finally:
        await r.stop()
    data = [data for _, data in await on_stream(bus)]
    assert data == [b"0:0", b"0:1", b"forged", b"0:2"]  # the lost event published again
    assert r.forgeries >= 1
    forged_after = REGISTRY.get_sample_value("parlor_relay_forged_duplicates_total", forged)
    assert forged_after is not None
    assert forged_after >= forged_before + 1
    assert any("sequence 4" in m and "position 10000" in m for m in caplog.messages)


async def test_a_forged_low_position_causes_no_rebuild(
    store: PostgresEventStore, bus: JetStreamBus, nats_url: str, eventually: Eventually
) -> None:
    await play(store, games=1, moves=3)
    first = relay(store, bus)
    first.start()
    try:
        await eventually(lambda: first.published == 3)
    finally:
        await first.stop()
    await forge(nats_url, f"{bus.subjects.prefix}.connect4x4.g0.DiscDropped", 1, count=2)
    r = relay(store, bus)
    r.start()
    try:
        lane = home(r, "games", "connect4x4-g0")
        await eventually(lambda: r.forgeries == 2 and lane.verified_position == 3)
    finally:
        await r.stop()
    assert (r.rebuilds, r.published) == (0, 0)
    assert len(await on_stream(bus)) == 5  # nothing published again


async def test_a_stream_buried_in_forgeries_is_republished_from_the_last_position_verified(
    store: PostgresEventStore, bus: JetStreamBus, nats_url: str, eventually: Eventually
) -> None:
    from parlor.eventstore.relay import VERIFY_LOOKBACK

    await play(store, games=1, moves=3)
    r = relay(store, bus, verify_interval=0.2)
    r.start()
    try:
        lane = home(r, "games", "connect4x4-g0")
        await eventually(lambda: r.published == 3 and lane.verified_position == 3)
        # More forgeries than verify walks back past: it believes no more than it saw last.
        subject = f"{bus.subjects.prefix}.connect4x4.g0.DiscDropped"
        await forge(nats_url, subject, 10_000, count=VERIFY_LOOKBACK + 1)
        await eventually(lambda: r.forgeries >= VERIFY_LOOKBACK)
        assert r.rebuilds == 0  # the lane verified position 3 on this stream before
    finally:
        await r.stop()
    fresh = relay(store, bus)  # nothing verified yet: everything is published again
    fresh.start()
    try:
        await eventually(lambda: fresh.rebuilds == 1 and fresh.published == 3)
    finally:
        await fresh.stop()
    assert len(await on_stream(bus)) == 3 + VERIFY_LOOKBACK + 1  # all deduplicated


# -- the stream's retention -----------------------------------------------------------------
# The stream keeps ``max_age`` of messages: the bus is a transport, the store keeps every event.
# What the stream let go by that limit is no loss (no rebuild); a real loss still is, and a
# rebuild puts back only what the stream would still hold, not the store's whole history.


class Verifying(Relay):
    """A relay that counts its stream checks (``verify``) that reached the bus."""

    verifies = 0

    async def verify(self, conn: Any, lane: Lane | None = None) -> bool:
        done = await super().verify(conn, lane)
        self.verifies += int(done)
        return done


def checking(store: PostgresEventStore, bus: JetStreamBus) -> Verifying:
    """A relay of everything that checks the stream every 0.2 s."""
    return Verifying(
        store, bus, name="games", poll_interval=0.2, takeover_interval=0.1, verify_interval=0.2
    )


async def backdate(store: PostgresEventStore, hours: float) -> None:
    """Every event so far recorded ``hours`` earlier: as old to the relay as if it had been."""
    async with store.engine.begin() as conn:
        await conn.execute(
            text("UPDATE events SET recorded_at = recorded_at - :hours * interval '1 hour'"),
            {"hours": hours},
        )


async def test_the_stream_keeps_max_age_of_messages_and_an_older_stream_is_given_it(
    bus: JetStreamBus, nats_url: str, subjects: Subjects
) -> None:
    config = (await bus.js.stream_info(subjects.stream)).config
    assert (config.max_age, config.duplicate_window) == (DEFAULT_MAX_AGE, DUPLICATE_WINDOW)
    assert DEFAULT_MAX_AGE == 72 * 3600
    assert (await bus.check_stream(subjects.all())).max_age == DEFAULT_MAX_AGE
    # A stream as an earlier release made it keeps every message for ever: it is given the age.
    await bus.js.delete_stream(subjects.stream)
    unlimited = StreamConfig(
        name=subjects.stream,
        subjects=[subjects.all()],
        storage=StorageType.FILE,
        duplicate_window=DUPLICATE_WINDOW,
    )
    await bus.js.add_stream(unlimited)
    assert (await bus.js.stream_info(subjects.stream)).config.max_age == 0
    await bus.ensure_streams()
    assert (await bus.js.stream_info(subjects.stream)).config.max_age == DEFAULT_MAX_AGE
    # JetStream remembers ids no longer than it keeps messages: a shorter age cuts the window.
    short = await JetStreamBus.connect(nats_url, subjects, max_age=2.0)
    try:
        await short.ensure_streams()
        config = (await short.js.stream_info(subjects.stream)).config
        assert (config.max_age, config.duplicate_window) == (2.0, 2.0)
        assert (await short.check_stream(subjects.all())).max_age == 2.0
    finally:
        await short.close()


async def test_a_lane_whose_messages_expired_publishes_nothing_again(
    store: PostgresEventStore, private_nats: Any, subjects: Subjects, eventually: Eventually
) -> None:
    """Its last message gone by the stream's max_age is no loss: no rebuild at its own checks,
    by a new leader (nothing verified yet on the stream), nor after a reconnection (NATS
    restarted with its store)."""
    bus = await JetStreamBus.connect(private_nats.url, subjects, max_age=1.0)
    await bus.ensure_streams()
    try:
        total = await play(store, games=1, moves=3)
        first = checking(store, bus)
        first.start()
        try:
            await eventually(lambda: first.published == total)
            await eventually_async(lambda: stored(bus), 0)  # expired
            checked = first.verifies
            await eventually(lambda: first.verifies >= checked + 3)
        finally:
            await first.stop()
        assert (first.rebuilds, first.published) == (0, total)

        second = checking(store, bus)
        second.start()
        try:
            await eventually(lambda: second.verifies >= 2)
            connections = bus.connections
            private_nats.stop()
            private_nats.start()
            await eventually(
                lambda: all(
                    lane.verified_connections == bus.connections > connections
                    for lane in parts(second, "games")
                ),
                20,
            )
            checked = second.verifies
            await eventually(lambda: second.verifies >= checked + 2)
        finally:
            await second.stop()
        assert (second.rebuilds, second.published) == (0, 0)
        assert await stored(bus) == 0
    finally:
        await bus.close()


@pytest.mark.parametrize("loss", ["stream deleted", "stream purged"])
async def test_a_lost_stream_gets_back_only_what_it_would_still_hold(
    store: PostgresEventStore,
    nats_url: str,
    subjects: Subjects,
    eventually: Eventually,
    loss: str,
) -> None:
    """Events older than the stream's max_age are not published again after a loss (the
    stream would not hold them: published anew, they would fill it again); younger ones are."""
    bus = await JetStreamBus.connect(nats_url, subjects, max_age=3600.0)
    await bus.ensure_streams()
    try:
        await play(store, games=1, moves=3, tag="old")
        await backdate(store, hours=2)  # older than the stream's hour
        await play(store, games=1, moves=2, tag="young")
        r = checking(store, bus)
        r.start()
        try:
            await eventually(lambda: r.published == 5)
            if loss == "stream deleted":
                await bus.js.delete_stream(subjects.stream)
            else:
                await bus.js.purge_stream(subjects.stream)
            await eventually(lambda: r.rebuilds == 1 and r.published >= 7)
            checked = r.verifies
            await eventually(lambda: r.verifies >= checked + 2)  # nothing more to do
        finally:
            await r.stop()
        assert (r.rebuilds, r.published) == (1, 7)
        young = await store.read_all(4, 10)
        found = await on_stream(bus)
        assert [d for _, d in found] == [e.data for e in young]
        # (after a purge JetStream still remembers the ids: they go under their redelivery ids)
        assert all(i.startswith(e.message_id) for (i, _), e in zip(found, young, strict=True))
    finally:
        with contextlib.suppress(nats.js.errors.NotFoundError):
            await bus.js.delete_stream(subjects.stream)
        await bus.close()


async def test_a_consumer_away_longer_than_max_age_gets_what_is_left_without_error(
    nats_url: str, subjects: Subjects
) -> None:
    """JetStream passes over what expired before a durable consumer fetched it: no error,
    no gap reported; the consumer goes on with the first message left (scoring is then
    rebuilt from the store: docs/architecture.md, "How long the bus keeps an event")."""
    bus = await JetStreamBus.connect(nats_url, subjects, max_age=1.0)
    await bus.ensure_streams()

    def moved(version: int) -> RecordedEvent:
        return RecordedEvent(
            "connect4x4-away", version, version, "Moved", b"m", 1, NO_METADATA, datetime.now(UTC)
        )

    try:
        sub = await bus.subscribe("away", subjects.all())
        for version in (1, 2, 3):
            await bus.publish_event(moved(version))
        await eventually_async(lambda: stored(bus), 0)  # expired before it was fetched
        await bus.publish_event(moved(4))
        deliveries = await sub.fetch(10, max_wait=1.0)
        assert [d.message_id for d in deliveries] == ["connect4x4-away:4"]
        await deliveries[0].ack()
        await sub.close()
    finally:
        await bus.js.delete_stream(subjects.stream)
        await bus.close()


async def test_a_relay_of_one_partition_is_followed_by_one_of_four_from_its_checkpoint(
    fresh_url: str, bus: JetStreamBus, eventually: Eventually
) -> None:
    """P raised on a database a relay of one partition has published: partition 0's part
    goes on from the lane's checkpoint (its lease and checkpoint keep their name), the new
    partitions from their start; nothing is published twice, nothing is missed, each
    partition in its order."""
    one = PostgresEventStore(fresh_url, poll_interval=0.5)
    four = PostgresEventStore(fresh_url, poll_interval=0.5, partitions=4)
    try:
        before = await play(one, games=3, moves=4, tag="before")
        first = relay(one, bus)
        first.start()
        try:
            await eventually(lambda: first.published == before)
        finally:
            await first.stop()
        assert await first.checkpoint() == before

        # the old games go on where they live (partition 0); new games spread over four
        after = await play(four, games=3, moves=2, tag="before")
        after += await play(four, games=8, moves=2, tag="after")
        homes = {p for p in range(4) if await four.read_partition(p, before + 1, 1)}
        assert len(homes) > 1, "the new games went to more than one partition"
        second = relay(four, bus)
        second.start()
        try:
            await eventually(lambda: second.published == after)
            await eventually_async(second.checkpoint, before + after)
        finally:
            await second.stop()
        assert second.published == after  # none of the first relay's published again
        assert await stored(bus) == before + after
        ids = await published_ids(bus, before + after)
        assert ids == await in_commit_order(four, ids)
    finally:
        await one.close()
        await four.close()


async def test_an_event_committing_late_below_another_partitions_checkpoint_is_published(
    fresh_url: str, bus: JetStreamBus, eventually: Eventually
) -> None:
    """With P > 1 positions interleave: an append whose transaction stays open commits at a
    position below events of another partition the relay has already published and
    checkpointed. Its partition's part has not passed it (that partition's appends wait for
    its lock), so it is published; one cursor over the global order would have passed it."""
    store = PostgresEventStore(fresh_url, poll_interval=0.5, partitions=4)
    try:
        late = "connect4x4-late"
        early = next(
            f"connect4x4-early{n}"
            for n in range(100)
            if partition_of(f"connect4x4-early{n}", 4) != partition_of(late, 4)
        )
        r = relay(store, bus)
        r.start()
        try:
            await eventually(lambda: r.is_leader)
            async with store.engine.begin() as conn:
                await store.append(
                    late, [NewEvent("DiscDropped", b"late")], NO_STREAM, connection=conn
                )
                await store.append(early, [NewEvent("DiscDropped", b"early")], NO_STREAM)
                (published,) = await store.read_stream(early)
                await eventually(lambda: r.published == 1)  # the other partition's event

                async def furthest() -> int:
                    return max((await r.partition_checkpoints()).values())

                await eventually_async(furthest, published.position)  # and checkpointed
            (committed,) = await store.read_stream(late)
            assert committed.position < published.position  # committed late, below it
            await eventually(lambda: r.published == 2)
        finally:
            await r.stop()
        ids = await published_ids(bus, 2)
        assert ids == [published.message_id, committed.message_id]
    finally:
        await store.close()


# ------------------------------------------------- the parts shared among replicas (spread)


def held_parts(relay: Relay) -> list[int]:
    return sorted(part.partition for part in parts(relay, "games") if part.held)


async def lease_holders(store: PostgresEventStore) -> dict[str, str]:
    """Each of the lane's parts' lease, by the replica that holds it (not expired)."""
    rows = await store.fetch(
        "SELECT name, holder FROM relay_leases WHERE expires_at > now() "
        "AND (name = 'games' OR name LIKE 'games@p%%')",
        {},
    )
    return {name: holder for name, holder in rows}


@pytest.fixture
async def split(fresh_url: str) -> AsyncIterator[PostgresEventStore]:
    store = PostgresEventStore(fresh_url, poll_interval=0.5, partitions=4)
    try:
        yield store
    finally:
        await store.close()


async def test_replicas_share_the_parts_and_publish_every_event_once_in_order(
    split: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    """With ``spread``, a second replica gets half the parts from the first (which led all
    four alone), a third none of four (each's share is two); both publish, every event once,
    each partition in its order, each part under one lease throughout."""
    a = relay(split, bus, spread=True, lease_seconds=2.0)
    b = relay(split, bus, spread=True, lease_seconds=2.0)
    c = relay(split, bus, spread=True, lease_seconds=2.0)
    a.start()
    try:
        await eventually(lambda: held_parts(a) == [0, 1, 2, 3])
        before = await play(split, games=8, moves=3, tag="before")
        b.start()
        await eventually(lambda: len(held_parts(a)) == 2 and len(held_parts(b)) == 2)
        assert held_parts(a) == [0, 1]
        assert held_parts(b) == [2, 3]  # a handed its highest over
        c.start()
        await eventually(lambda: c.replicas == 3)
        await asyncio.sleep(1.0)  # c's looks find nothing its share of ceil(4/3) = 2 leaves
        assert held_parts(c) == []
        assert len(held_parts(a)) == len(held_parts(b)) == 2
        holders = await lease_holders(split)
        assert len(holders) == 4
        assert set(holders.values()) == {a.holder, b.holder}
        after = await play(split, games=8, moves=3, tag="after")
        await eventually(lambda: a.published + b.published >= before + after)
        await eventually_async(a.checkpoint, before + after)
        assert b.published > 0, "the second replica publishes its partitions"
        # b went on from what a verified when it handed the parts over: a's events in them
        # are not published again (JetStream would drop them, but past its dedupe window
        # they would be duplicates)
        assert a.published + b.published == before + after
    finally:
        for r in (a, b, c):
            await r.stop()
    assert await stored(bus) == before + after
    ids = await published_ids(bus, before + after)
    assert ids == await in_commit_order(split, ids)


async def test_a_replica_that_stops_or_dies_leaves_its_parts_to_the_others(
    split: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    """Stopped, a replica hands its parts over at once (its row gone, the others' shares
    grow); its session killed, its parts go to the others when its leases run out. Nothing
    is lost or published twice either way."""
    a = relay(split, bus, spread=True, lease_seconds=2.0)
    b = relay(split, bus, spread=True, lease_seconds=2.0)
    c = relay(split, bus, spread=True, lease_seconds=2.0)
    for r in (a, b):
        r.start()
    try:
        await eventually(lambda: len(held_parts(a)) == 2 and len(held_parts(b)) == 2)
        total = await play(split, games=8, moves=2, tag="one")
        await b.stop()
        await eventually(lambda: held_parts(a) == [0, 1, 2, 3], seconds=5)
        total += await play(split, games=8, moves=2, tag="two")
        await eventually_async(a.checkpoint, total)

        c.start()
        await eventually(lambda: len(held_parts(a)) == 2 and len(held_parts(c)) == 2)
        with psycopg.connect(split.url, autocommit=True) as admin:
            # c's relay session killed, as a crash or a network cut would
            admin.execute("SELECT pg_terminate_backend(%s)", (c.session_pid,))
        total += await play(split, games=8, moves=2, tag="three")
        await eventually_async(a.checkpoint, total, seconds=15)
        holders = await lease_holders(split)
        assert len(holders) == 4
        assert all(h in (a.holder, c.holder) for h in holders.values())
    finally:
        for r in (a, b, c):
            await r.stop()
    assert await stored(bus) == total
    ids = await published_ids(bus, total)
    assert ids == await in_commit_order(split, ids)


async def test_a_part_taken_over_under_the_other_parts_messages_is_not_published_again(
    split: PostgresEventStore, bus: JetStreamBus, eventually: Eventually
) -> None:
    """The parts b takes over have their last messages buried under 300 of the other
    parts' (far past verify's walk of 32 + 32 a partition): b finds each on its own game's
    subjects and goes on from there, publishing none of a's again."""
    a = relay(split, bus, spread=True, lease_seconds=2.0)
    b = relay(split, bus, spread=True, lease_seconds=2.0)
    a.start()
    try:
        await eventually(lambda: held_parts(a) == [0, 1, 2, 3])
        total = await play(split, games=16, moves=2, tag="all")
        low = [
            f"connect4x4-low{n}" for n in range(400) if partition_of(f"connect4x4-low{n}", 4) < 2
        ][:150]
        for stream in low:
            await split.append(
                stream, [NewEvent("DiscDropped", b"1"), NewEvent("DiscDropped", b"2")], NO_STREAM
            )
        total += 2 * len(low)
        await eventually(lambda: a.published == total)
        b.start()
        await eventually(lambda: held_parts(b) == [2, 3])
        total += await play(split, games=16, moves=1, tag="after")
        await eventually_async(a.checkpoint, total)
        assert b.rebuilds == 0
    finally:
        await a.stop()
        await b.stop()
    assert a.published + b.published == total  # none published twice
    assert await stored(bus) == total
    ids = await published_ids(bus, total)
    assert ids == await in_commit_order(split, ids)
