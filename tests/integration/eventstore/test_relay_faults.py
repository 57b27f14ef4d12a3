"""The relay when the bus forgets, when a leader freezes, and when an event is too large.

On real PostgreSQL and NATS: a private ``nats-server`` this test may stop and wipe, and
a relay replica in a process of its own that the test freezes with SIGSTOP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import nats
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from parlor.core.errors import InvalidArgument, ParlorError
from parlor.eventstore import (
    NO_STREAM,
    Delivery,
    DurableConsumer,
    Inbox,
    JetStreamBus,
    NatsCredentials,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
    Relay,
    Subjects,
)
from parlor.eventstore.relay import DEAD_LETTERS, STREAM_REBUILDS

pytestmark = pytest.mark.integration

Eventually = Callable[..., Awaitable[None]]
REPLICA = Path(__file__).with_name("relay_replica.py")


@pytest.fixture(params=[1, 4], ids=["P1", "P4"])
async def store(
    fresh_url: str, request: pytest.FixtureRequest
) -> AsyncIterator[PostgresEventStore]:
    """The store of one partition, and split into four: the relay's guarantees hold for both."""
    pg = PostgresEventStore(fresh_url, poll_interval=0.2, partitions=request.param)
    try:
        yield pg
    finally:
        await pg.close()


@pytest.fixture
def subjects(unique: str) -> Subjects:
    return Subjects(prefix=f"t{unique}.events", stream=f"T{unique}")


def category_relay(store: PostgresEventStore, bus: JetStreamBus, category: str) -> Relay:
    """One relay per category sharing one stream, as the services run them."""

    def mine(event: RecordedEvent) -> RecordedEvent | None:
        return event if event.stream_id.startswith(f"{category}-") else None

    return Relay(
        store,
        bus,
        name=category,
        redact=mine,
        subject=bus.subjects.category(category),
        poll_interval=0.2,
        takeover_interval=0.1,
        max_backoff=0.2,
        verify_interval=0.5,
    )


async def append(store: PostgresEventStore, category: str, games: int, moves: int) -> int:
    for g in range(games):
        stream = f"{category}-g{g}"
        base = await store.stream_version(stream)
        for m in range(moves):
            await store.append(stream, [NewEvent("Moved", f"{g}:{base + m}".encode())], base + m)
    return games * moves


async def stream_ids(url: str, subjects: Subjects) -> list[str]:
    """Every ``Nats-Msg-Id`` on the stream, in stream order."""
    nc = await nats.connect(url)
    try:
        js = nc.jetstream()
        info = await js.stream_info(subjects.stream)
        ids: list[str] = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            with contextlib.suppress(nats.js.errors.NotFoundError):
                msg = await js.get_msg(subjects.stream, seq)
                ids.append((msg.headers or {})["Nats-Msg-Id"])
        return ids
    finally:
        await nc.close()


async def until(check: Callable[[], Awaitable[bool]], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.1)


async def test_after_nats_loses_its_store_every_event_is_on_the_new_stream_exactly_once(
    store: PostgresEventStore,
    private_nats: Any,
    subjects: Subjects,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="parlor.eventstore.relay")
    bus = await JetStreamBus.connect(
        private_nats.url, subjects, publish_timeout=0.5, consumer_check_interval=0.5
    )
    await bus.ensure_streams()
    relays = [category_relay(store, bus, c) for c in ("connect4x4", "upwords")]
    # A consumer made idempotent by the inbox: it must go on after the wipe, once per event.
    async with store.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE seen (message_id text)"))

    async def record(conn: AsyncConnection, delivery: Delivery) -> None:
        await conn.execute(text("INSERT INTO seen VALUES (:m)"), {"m": delivery.message_id})

    async def seen() -> list[str]:
        async with store.engine.connect() as conn:
            return [r[0] for r in await conn.execute(text("SELECT message_id FROM seen"))]

    stop = asyncio.Event()
    # (a DurableConsumer: it subscribes again, and so makes the consumer again, after the wipe)
    sub = DurableConsumer(bus, "tally", subjects.all(), ack_wait=2, max_backoff=0.5)
    consumer = asyncio.create_task(
        Inbox(store.engine, "tally").run(sub, record, fetch_wait=0.2, retry_delay=0.1, stop=stop)
    )
    rebuilds_before = sum(STREAM_REBUILDS.labels(r.name)._value.get() for r in relays)
    for r in relays:
        r.start()

    async def on_stream_once() -> bool:
        everything = [e.message_id for e in await store.read_all(1, limit=10_000)]
        try:
            ids = await stream_ids(private_nats.url, subjects)
        except Exception:
            return False
        return len(ids) == len(everything) and sorted(ids) == sorted(everything)

    try:
        await append(store, "connect4x4", games=3, moves=5)
        await append(store, "upwords", games=2, moves=5)
        await until(on_stream_once, 15)

        private_nats.stop()  # NATS comes back without its store: no stream, no messages
        shutil.rmtree(private_nats.store_dir)
        private_nats.start()
        # Only one category goes on; the idle relay must republish its events all the same.
        await append(store, "connect4x4", games=1, moves=3)

        await until(on_stream_once, 30)
        ids = await stream_ids(private_nats.url, subjects)
        assert len(ids) == len(set(ids)) == 28, "every event in PostgreSQL once on the new stream"
        await asyncio.sleep(1.0)  # the relays' next checks find nothing more to do
        assert await stream_ids(private_nats.url, subjects) == ids

        async def consumed_all() -> bool:
            return len(await seen()) == len(ids)

        await until(consumed_all, 15)
        assert sorted(await seen()) == sorted(ids), "the consumer applied every event once"
    finally:
        stop.set()
        await asyncio.wait_for(consumer, 10)
        for r in relays:
            await r.stop()
        await bus.close()
    assert all(r.rebuilds >= 1 for r in relays)
    assert sum(STREAM_REBUILDS.labels(r.name)._value.get() for r in relays) >= rebuilds_before + 2
    assert any("republishing from the store" in m for m in caplog.messages)
    for r in relays:
        assert await r.checkpoint() == await store.head_position()


async def test_a_stream_deleted_under_an_idle_relay_is_made_again_and_republished(
    store: PostgresEventStore, private_nats: Any, subjects: Subjects
) -> None:
    bus = await JetStreamBus.connect(private_nats.url, subjects, publish_timeout=0.5)
    await bus.ensure_streams()
    r = category_relay(store, bus, "connect4x4")
    r.start()
    try:
        total = await append(store, "connect4x4", games=2, moves=4)
        await until(lambda: _count(private_nats.url, subjects, total), 10)
        await bus.js.delete_stream(subjects.stream)  # no reconnection, no publish: the check
        await until(lambda: _count(private_nats.url, subjects, total), 10)
    finally:
        await r.stop()
        await bus.close()
    ids = await stream_ids(private_nats.url, subjects)
    assert ids == [e.message_id for e in await store.read_all(1, limit=100)]
    assert r.rebuilds == 1


async def _count(url: str, subjects: Subjects, want: int) -> bool:
    try:
        return len(await stream_ids(url, subjects)) == want
    except Exception:
        return False


async def test_an_event_the_bus_refuses_is_set_aside_and_the_relay_goes_on(
    store: PostgresEventStore,
    nats_url: str,
    subjects: Subjects,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="parlor.eventstore.relay")
    bus = await JetStreamBus.connect(nats_url, subjects)
    await bus.ensure_streams()
    r = Relay(store, bus, name="games", poll_interval=0.2, takeover_interval=0.1)
    before = DEAD_LETTERS.labels("games")._value.get()
    try:
        await store.append("connect4x4-a", [NewEvent("Moved", b"1")], NO_STREAM)
        # Larger than NATS takes (1 MiB by default), as a 2 MB display name once made one.
        # The store refuses such an append itself; this one was told a larger limit (as a
        # store is when its bus's server is configured smaller), so the relay meets it.
        store.max_event_bytes = 4 * bus.nc.max_payload
        big = b"x" * (bus.nc.max_payload + 10)
        await store.append("connect4x4-b", [NewEvent("Named", big)], NO_STREAM)
        await store.append("connect4x4-a", [NewEvent("Moved", b"2")], 1)
        r.start()
        await until(lambda: _checkpoint_is(r, 3), 10)
        await store.append("connect4x4-a", [NewEvent("Moved", b"3")], 2)
        await until(lambda: _checkpoint_is(r, 4), 10)
        ids = await stream_ids(nats_url, subjects)
    finally:
        await r.stop()
        with contextlib.suppress(Exception):
            await bus.js.delete_stream(subjects.stream)
        await bus.close()
    assert ids == ["connect4x4-a:1", "connect4x4-a:2", "connect4x4-a:3"]
    letters = await r.dead_letters()
    assert [(p, s, v, t) for p, s, v, t, _, _ in letters] == [(2, "connect4x4-b", 1, "Named")]
    assert letters[0][4] == len(big)
    assert DEAD_LETTERS.labels("games")._value.get() == before + 1
    assert any("dead letter" in m and "connect4x4-b:1" in m for m in caplog.messages)


async def test_a_jetstream_out_of_storage_holds_the_relay_back_and_sets_nothing_aside(
    store: PostgresEventStore,
    small_store_nats: Any,
    subjects: Subjects,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """JetStream refuses publishes while its storage (the server's, or the account's) is used
    up: a refusal for now, not of the events. The relay waits and tries again, sets nothing
    aside, and goes on as the stream's max_age frees space; the messages that expired
    meanwhile are no loss to its checks (no rebuild)."""
    caplog.set_level(logging.WARNING, logger="parlor.eventstore.relay")
    credentials = NatsCredentials(user="app", password="app")
    if "accounts" not in small_store_nats.config.read_text():
        credentials = NatsCredentials()
    bus = await JetStreamBus.connect(
        small_store_nats.url, subjects, credentials=credentials, publish_timeout=0.5, max_age=3.0
    )
    await bus.ensure_streams()
    r = category_relay(store, bus, "connect4x4")
    try:
        total = await append(store, "connect4x4", games=4, moves=100)  # twice the storage
        head = await store.head_position()
        r.start()

        async def all_published() -> bool:
            return await r.checkpoint() == head

        await until(all_published, 60)
    finally:
        await r.stop()
        await bus.close()
    assert await r.dead_letters() == []
    assert (r.published, r.rebuilds) == (total, 0)
    assert any(
        "bus unavailable" in m
        and ("insufficient resources" in m or "resource limits exceeded" in m)
        for m in caplog.messages
    )


async def test_an_event_its_redaction_cannot_read_is_set_aside_unpublished_and_the_relay_goes_on(
    store: PostgresEventStore,
    nats_url: str,
    subjects: Subjects,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A stored event the game's ``public`` cannot parse (a type its codec no longer knows,
    bytes it cannot decode) is neither published as it is (it may hold a rack) nor retried
    forever: before, the relay stepped down, took the lead again and met the same event,
    so no event of any lane after it ever reached the bus."""
    caplog.set_level(logging.ERROR, logger="parlor.eventstore.relay")

    def public(event: RecordedEvent) -> RecordedEvent | None:
        if event.type == "Unreadable":
            raise ParlorError(f"unknown upwords event type {event.type!r}")
        return event

    bus = await JetStreamBus.connect(nats_url, subjects)
    await bus.ensure_streams()
    r = Relay(store, bus, name="games", redact=public, poll_interval=0.2, takeover_interval=0.1)
    before = DEAD_LETTERS.labels("games")._value.get()
    try:
        await store.append("upwords-a", [NewEvent("Moved", b"1")], NO_STREAM)
        await store.append("upwords-b", [NewEvent("Unreadable", b"rack:QZX")], NO_STREAM)
        await store.append("upwords-a", [NewEvent("Moved", b"2")], 1)
        r.start()
        await until(lambda: _checkpoint_is(r, 3), 10)
        ids = await stream_ids(nats_url, subjects)
    finally:
        await r.stop()
        with contextlib.suppress(Exception):
            await bus.js.delete_stream(subjects.stream)
        await bus.close()
    assert ids == ["upwords-a:1", "upwords-a:2"]
    letters = await r.dead_letters()
    assert [(p, s, v, t) for p, s, v, t, _, _ in letters] == [(2, "upwords-b", 1, "Unreadable")]
    assert "unknown upwords event type" in letters[0][5]
    assert DEAD_LETTERS.labels("games")._value.get() == before + 1
    assert any("dead letter" in m and "upwords-b:1" in m for m in caplog.messages)


async def test_a_bus_that_answers_after_start_limits_appends_to_its_servers_max_payload(
    store: PostgresEventStore, subjects: Subjects, late_small_nats: Any
) -> None:
    """The services open the bus without waiting (``JetStreamBus.open``) and limit their
    store to its max payload at once. Before NATS has answered, that is nats-py's 1 MiB
    default; a server configured smaller, reached later, used to leave the store at 1 MiB,
    so events it could never carry were appended and only met as dead letters by the
    relay (a GameFinished never scored). The limit is now read at each append."""
    bus = await JetStreamBus.open(late_small_nats.url, subjects, max_backoff=0.2)
    store.limit_events_to(lambda: bus.max_payload)  # as game_backends and matchmaking do
    try:
        assert not bus.ready.is_set()
        late_small_nats.start()
        await asyncio.wait_for(bus.ready.wait(), 10)
        assert bus.max_payload == 8192
        with pytest.raises(InvalidArgument) as refused:
            await store.append("upwords-big", [NewEvent("Named", b"x" * 6000)], NO_STREAM)
        assert refused.value.reason == "EVENT_TOO_LARGE"
        assert await store.stream_version("upwords-big") == 0
        await store.append("upwords-big", [NewEvent("Named", b"x" * 1000)], NO_STREAM)
    finally:
        with contextlib.suppress(Exception):
            await bus.js.delete_stream(subjects.stream)
        await bus.close()


async def _checkpoint_is(r: Relay, position: int) -> bool:
    return await r.checkpoint() == position


async def test_a_frozen_leader_loses_the_lease_and_woken_publishes_nothing(
    store: PostgresEventStore, nats_url: str, subjects: Subjects, fresh_url: str
) -> None:
    lease = 2.0
    bus = await JetStreamBus.connect(nats_url, subjects)
    await bus.ensure_streams()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(REPLICA),
        fresh_url,
        nats_url,
        subjects.prefix,
        subjects.stream,
        str(lease),
        str(store.partitions),  # a replica of the same deployment: its P
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    states: list[dict[str, Any]] = []

    async def read() -> None:
        assert proc.stdout is not None
        async for line in proc.stdout:
            states.append(json.loads(line))

    reader = asyncio.create_task(read())
    b = Relay(store, bus, name="games", lease_seconds=lease, takeover_interval=0.1)

    async def frozen_one_published(n: int) -> bool:
        return bool(states) and states[-1]["published"] == n

    async def on_the_stream(n: int) -> bool:
        # The stream, not b's count: b also sends again what the frozen one published after
        # its last checkpoint save (at most every 0.1 s), which the dedupe window drops.
        return len(await stream_ids(nats_url, subjects)) == n

    try:
        await until(lambda: _true(bool(states) and states[-1]["leader"]), 20)
        b.start()
        await append(store, "connect4x4", games=1, moves=5)
        await until(lambda: frozen_one_published(5), 10)
        await until(lambda: on_the_stream(5), 10)
        assert b.published == 0
        assert not b.is_leader

        os.kill(proc.pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        await append(store, "connect4x4", games=1, moves=5)
        await until(lambda: on_the_stream(10), lease * 3)
        takeover = time.monotonic() - frozen_at
        print(f"takeover: the standby published {takeover:.2f} s after the leader froze")
        assert takeover < lease + 1.0, "another replica publishes within the lease time"

        os.kill(proc.pid, signal.SIGCONT)
        await asyncio.sleep(0.5)  # the woken one finds its lease gone
        await append(store, "connect4x4", games=1, moves=5)
        await until(lambda: on_the_stream(15), 10)
        await asyncio.sleep(1.0)
        assert b.is_leader
        assert states[-1] == {"leader": False, "published": 5}, "woken, it published nothing"
        assert await b.checkpoint() == 15
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGCONT)
            proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)
        await reader
        await b.stop()
    assert states[-1]["published"] == 5
    ids = await stream_ids(nats_url, subjects)
    assert ids == [e.message_id for e in await store.read_all(1, limit=100)]
    await bus.js.delete_stream(subjects.stream)
    await bus.close()


async def _true(value: bool) -> bool:
    return value
