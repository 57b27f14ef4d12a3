"""Event store benchmark: Parlor's store beside raw psycopg inserts and eventsourcing's recorder.

All three run in the same process, against the same PostgreSQL server, in one
scratch database, one after the other:

- appends/s with 1 and 10 events per transaction, with 1 and 4 writers;
- stream read rate (events/s reading whole 1000-event streams);
- commit-to-consumer latency p50/p99: append -> (relay) -> JetStream -> pull consumer.

Baselines: "raw" is one autocommit ``INSERT ... SELECT FROM unnest(...)`` per
transaction into a table with the same unique (stream, version) key, with no
version check, no idempotency and no ordering lock; its latency row publishes
straight to JetStream after the commit (a dual write, no outbox: a lower bound).
"eventsourcing" is ``PostgresApplicationRecorder.insert_events`` (pyeventsourcing,
threads, ``LOCK TABLE ... IN EXCLUSIVE MODE``), its latency row follows the
recorder with its own ``subscribe()`` and publishes to JetStream.

Run: ``python bench/eventstore_bench.py [--seconds 2] [--samples 300]``. Finds
PostgreSQL and NATS like the tests do (``PARLOR_DATABASE_URL``/``PARLOR_NATS_URL``
or local servers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import psycopg

from parlor.devinfra.backends import find_backends, scratch_database
from parlor.devinfra.scratch import scratch_name
from parlor.eventstore import (
    JetStreamBus,
    NewEvent,
    PostgresEventStore,
    Relay,
    Subjects,
    migrate,
)

PAYLOAD = bytes(range(64))  # a small protobuf-sized payload
STREAM_LENGTH = 100  # a game: writers move to a new stream every 100 events

RAW_TABLE = """
CREATE TABLE raw_events (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id text NOT NULL,
    version bigint NOT NULL,
    type text NOT NULL,
    data bytea NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (stream_id, version)
)
"""
RAW_INSERT = (
    "INSERT INTO raw_events (stream_id, version, type, data) "
    "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::text[], %s::bytea[])"
)
RAW_SELECT = (
    "SELECT position, stream_id, version, type, data, recorded_at FROM raw_events "
    "WHERE stream_id = %s ORDER BY version"
)


# ---------------------------------------------------------------- appends


async def parlor_appends(
    store: PostgresEventStore, writers: int, per_txn: int, seconds: float
) -> float:
    run = uuid.uuid4().hex[:8]
    events = [NewEvent("DiscDropped", PAYLOAD) for _ in range(per_txn)]
    deadline = time.perf_counter() + seconds
    counts = [0] * writers

    async def writer(w: int) -> None:
        game, version = 0, 0
        while time.perf_counter() < deadline:
            if version + per_txn > STREAM_LENGTH:
                game, version = game + 1, 0
            await store.append(f"bench-{run}w{w}g{game}", events, version)
            version += per_txn
            counts[w] += per_txn

    start = time.perf_counter()
    await asyncio.gather(*(writer(w) for w in range(writers)))
    return sum(counts) / (time.perf_counter() - start)


async def raw_appends(url: str, writers: int, per_txn: int, seconds: float) -> float:
    run = uuid.uuid4().hex[:8]
    deadline = time.perf_counter() + seconds
    counts = [0] * writers

    async def writer(w: int) -> None:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            game, version = 0, 0
            while time.perf_counter() < deadline:
                if version + per_txn > STREAM_LENGTH:
                    game, version = game + 1, 0
                stream = f"bench-{run}w{w}g{game}"
                await conn.execute(
                    RAW_INSERT,
                    (
                        [stream] * per_txn,
                        list(range(version + 1, version + per_txn + 1)),
                        ["DiscDropped"] * per_txn,
                        [PAYLOAD] * per_txn,
                    ),
                    prepare=True,
                )
                version += per_txn
                counts[w] += per_txn

    start = time.perf_counter()
    await asyncio.gather(*(writer(w) for w in range(writers)))
    return sum(counts) / (time.perf_counter() - start)


def es_recorder(url: str, pool_size: int) -> Any:
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    parts = urlsplit(url)
    datastore = PostgresDatastore(
        dbname=parts.path.lstrip("/"),
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=parts.username or "postgres",
        password=parts.password or "",
        pool_size=pool_size,
        originator_id_type="text",
    )
    recorder = PostgresApplicationRecorder(datastore)
    recorder.create_table()
    return recorder


def es_appends(recorder: Any, writers: int, per_txn: int, seconds: float) -> float:
    from eventsourcing.persistence import StoredEvent

    run = uuid.uuid4().hex[:8]
    deadline = time.perf_counter() + seconds
    counts = [0] * writers

    def writer(w: int) -> None:
        game, version = 0, 0
        while time.perf_counter() < deadline:
            if version + per_txn > STREAM_LENGTH:
                game, version = game + 1, 0
            stream = f"bench-{run}w{w}g{game}"
            recorder.insert_events(
                [
                    StoredEvent(stream, version + k + 1, "DiscDropped", PAYLOAD)
                    for k in range(per_txn)
                ]
            )
            version += per_txn
            counts[w] += per_txn

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


# ---------------------------------------------------------------- reads

READ_STREAM_LENGTH = 1000


async def timed_reads(read: Callable[[], Awaitable[int]], seconds: float) -> float:
    total = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        total += await read()
    return total / (time.perf_counter() - start)


async def read_rates(
    store: PostgresEventStore, url: str, recorder: Any, seconds: float, rounds: int
) -> tuple[float, float, float]:
    from eventsourcing.persistence import StoredEvent

    stream = f"bench-read{uuid.uuid4().hex[:8]}"
    for v in range(0, READ_STREAM_LENGTH, 10):
        await store.append(stream, [NewEvent("DiscDropped", PAYLOAD)] * 10, v)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            RAW_INSERT,
            (
                [stream] * READ_STREAM_LENGTH,
                list(range(1, READ_STREAM_LENGTH + 1)),
                ["DiscDropped"] * READ_STREAM_LENGTH,
                [PAYLOAD] * READ_STREAM_LENGTH,
            ),
        )
        for v in range(0, READ_STREAM_LENGTH, 100):
            recorder.insert_events(
                [StoredEvent(stream, v + k + 1, "DiscDropped", PAYLOAD) for k in range(100)]
            )

        async def ours() -> int:
            return len(await store.read_stream(stream))

        async def raw() -> int:
            cur = await conn.execute(RAW_SELECT, (stream,), prepare=True)
            return len(await cur.fetchall())

        async def es() -> int:
            return len(await asyncio.to_thread(recorder.select_events, stream))

        runs: tuple[list[float], list[float], list[float]] = ([], [], [])
        for _ in range(rounds):
            for figures, read in zip(runs, (ours, raw, es), strict=True):
                figures.append(await timed_reads(read, seconds))
        ours_rate, raw_rate, es_rate = (statistics.median(f) for f in runs)
        return ours_rate, raw_rate, es_rate


# ---------------------------------------------------------------- latency


class Stopwatch:
    """Matches what the consumer receives to when it was appended."""

    def __init__(self) -> None:
        self.waiting: dict[str, asyncio.Future[float]] = {}

    def expect(self, message_id: str) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[message_id] = future
        return future

    async def consume(self, bus: JetStreamBus, durable: str) -> None:
        sub = await bus.subscribe(durable, bus.subjects.all())
        while True:
            try:
                deliveries = await sub.fetch(10, max_wait=1.0)
            except Exception as exc:
                print(f"consumer: fetch failed ({exc!r}), retrying")
                continue
            for delivery in deliveries:
                now = time.perf_counter()
                future = self.waiting.pop(delivery.message_id, None)
                if future is not None and not future.done():
                    future.set_result(now)
                await delivery.ack()


WARMUP = 30  # samples run but not counted: connections, prepared statements, relay start

OneSample = Callable[[], Awaitable[float]]


def percentiles(latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return p50 * 1000, p99 * 1000


async def with_bus(nats_url: str, tag: str) -> JetStreamBus:
    bus = await JetStreamBus.connect(
        nats_url, Subjects(prefix=f"bench{tag}.events", stream=scratch_name("bench", "stream"))
    )
    await bus.ensure_streams()
    return bus


class Counter:
    def __init__(self) -> None:
        self.n = 0

    def next(self) -> int:
        self.n += 1
        return self.n


@contextlib.asynccontextmanager
async def parlor_latency(store: PostgresEventStore, nats_url: str) -> AsyncIterator[OneSample]:
    tag = uuid.uuid4().hex[:6]
    bus = await with_bus(nats_url, tag)
    relay = Relay(store, bus, name=f"bench{tag}")
    # Measure new events only: the relay starts at the head, not at the append runs' events.
    async with await psycopg.AsyncConnection.connect(store.url, autocommit=True) as conn:
        await conn.execute(
            "INSERT INTO relay_checkpoints (name, position, updated_at) VALUES (%s, %s, now())",
            (relay.name, await store.head_position()),
        )
    relay.start()
    watch = Stopwatch()
    consumer = asyncio.create_task(watch.consume(bus, "latency"))
    stream, counter = f"bench-lat{tag}", Counter()

    async def one() -> float:
        version = counter.next()
        arrived = watch.expect(f"{stream}:{version}")
        start = time.perf_counter()
        await store.append(stream, [NewEvent("DiscDropped", PAYLOAD)], version - 1)
        try:
            return await asyncio.wait_for(arrived, 10) - start
        except TimeoutError:
            print(
                f"parlor: {stream}:{version} not consumed in 10 s; relay leader={relay.is_leader}"
                f" published={relay.published} checkpoint={await relay.checkpoint()}"
                f" head={await store.head_position()} relay task={relay.task}"
                f" consumer={consumer}"
            )
            raise

    try:
        yield one
    finally:
        consumer.cancel()
        await relay.stop()
        await bus.js.delete_stream(bus.subjects.stream)
        await bus.close()


@contextlib.asynccontextmanager
async def raw_latency(url: str, nats_url: str) -> AsyncIterator[OneSample]:
    tag = uuid.uuid4().hex[:6]
    bus = await with_bus(nats_url, tag)
    watch = Stopwatch()
    consumer = asyncio.create_task(watch.consume(bus, "latency"))
    stream, counter = f"bench-lat{tag}", Counter()
    subject = f"{bus.subjects.prefix}.bench.lat{tag}.DiscDropped"
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)

    async def one() -> float:
        version = counter.next()
        arrived = watch.expect(f"{stream}:{version}")
        start = time.perf_counter()
        await conn.execute(
            RAW_INSERT, ([stream], [version], ["DiscDropped"], [PAYLOAD]), prepare=True
        )
        await bus.publish(subject, PAYLOAD, message_id=f"{stream}:{version}")
        return await asyncio.wait_for(arrived, 10) - start

    try:
        yield one
    finally:
        consumer.cancel()
        await conn.close()
        await bus.js.delete_stream(bus.subjects.stream)
        await bus.close()


@contextlib.asynccontextmanager
async def es_latency(recorder: Any, nats_url: str) -> AsyncIterator[OneSample]:
    from eventsourcing.persistence import StoredEvent

    tag = uuid.uuid4().hex[:6]
    bus = await with_bus(nats_url, tag)
    watch = Stopwatch()
    consumer = asyncio.create_task(watch.consume(bus, "latency"))
    stream, counter = f"bench-lat{tag}", Counter()
    subject = f"{bus.subjects.prefix}.bench.lat{tag}.DiscDropped"
    loop = asyncio.get_running_loop()
    subscription = recorder.subscribe(gt=recorder.max_notification_id())

    def follow() -> None:
        # eventsourcing's follower: LISTEN/NOTIFY inside the recorder, in a thread.
        for notification in subscription:
            msg_id = f"{notification.originator_id}:{notification.originator_version}"
            for _ in range(10):  # a relay retries: so does this follower
                try:
                    asyncio.run_coroutine_threadsafe(
                        bus.publish(subject, notification.state, message_id=msg_id), loop
                    ).result()
                    break
                except Exception as exc:
                    print(f"eventsourcing follower: publish failed ({exc!r}), retrying")

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()

    async def one() -> float:
        version = counter.next()
        arrived = watch.expect(f"{stream}:{version}")
        start = time.perf_counter()
        await asyncio.to_thread(
            recorder.insert_events, [StoredEvent(stream, version, "DiscDropped", PAYLOAD)]
        )
        return await asyncio.wait_for(arrived, 10) - start

    try:
        yield one
    finally:
        subscription.stop()
        consumer.cancel()
        await bus.js.delete_stream(bus.subjects.stream)
        await bus.close()


async def latencies(
    systems: list[OneSample], samples: int, rounds: int
) -> list[tuple[float, float]]:
    """All three set up at once, then rounds in turn, so load falls on each alike."""
    for one in systems:
        for _ in range(WARMUP):
            await one()
    found: list[list[float]] = [[] for _ in systems]
    for _ in range(rounds):
        for one, figures in zip(systems, found, strict=True):
            for _ in range(max(1, samples // rounds)):
                figures.append(await one())
                await asyncio.sleep(0.002)
    return [percentiles(f) for f in found]


# ---------------------------------------------------------------- table


def row(
    label: str, ours: float, raw: float, es: float, unit: str, lower_is_better: bool = False
) -> str:
    if lower_is_better:
        vs_raw, vs_es = raw / ours, es / ours
        fmt = "{:>12.2f}"
    else:
        vs_raw, vs_es = ours / raw, ours / es
        fmt = "{:>12,.0f}"
    return (
        f"{label:<40}{unit:>7}"
        + fmt.format(ours)
        + fmt.format(raw)
        + fmt.format(es)
        + f"{vs_raw:>10.2f}x{vs_es:>10.2f}x"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per throughput figure")
    parser.add_argument("--samples", type=int, default=300, help="latency samples per system")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per figure")
    args = parser.parse_args()

    with (
        find_backends() as backends,
        scratch_database(backends.database_url, scratch_name("bench")) as url,
    ):
        await migrate(url)
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute(RAW_TABLE)
        store = PostgresEventStore(url, pool_size=8)
        recorder = es_recorder(url, pool_size=4)
        lines = []
        header = (
            f"{'metric':<40}{'unit':>7}{'parlor':>12}{'raw':>12}{'evsourcing':>12}"
            f"{'par vs raw':>11}{'par vs es':>11}"
        )
        for writers in (1, 4):
            for per_txn in (1, 10):
                # Rounds alternate the systems so load from elsewhere hits all three alike;
                # each figure is the median of its rounds.
                runs: dict[str, list[float]] = {"parlor": [], "raw": [], "es": []}
                for _ in range(args.rounds):
                    runs["parlor"].append(
                        await parlor_appends(store, writers, per_txn, args.seconds)
                    )
                    runs["raw"].append(await raw_appends(url, writers, per_txn, args.seconds))
                    runs["es"].append(
                        await asyncio.to_thread(
                            es_appends, recorder, writers, per_txn, args.seconds
                        )
                    )
                label = f"append {per_txn:>2} ev/txn, {writers} writer(s)"
                lines.append(
                    row(
                        label,
                        statistics.median(runs["parlor"]),
                        statistics.median(runs["raw"]),
                        statistics.median(runs["es"]),
                        "ev/s",
                    )
                )
                print(lines[-1], flush=True)
        ours_r, raw_r, es_r = await read_rates(store, url, recorder, args.seconds, args.rounds)
        lines.append(row(f"read {READ_STREAM_LENGTH}-event stream", ours_r, raw_r, es_r, "ev/s"))
        print(lines[-1], flush=True)
        async with (
            parlor_latency(store, backends.nats_url) as ours_one,
            raw_latency(url, backends.nats_url) as raw_one,
            es_latency(recorder, backends.nats_url) as es_one,
        ):
            lat = await latencies([ours_one, raw_one, es_one], args.samples, args.rounds)
        lines.append(
            row(
                "commit->consumer latency p50",
                lat[0][0],
                lat[1][0],
                lat[2][0],
                "ms",
                lower_is_better=True,
            )
        )
        lines.append(
            row(
                "commit->consumer latency p99",
                lat[0][1],
                lat[1][1],
                lat[2][1],
                "ms",
                lower_is_better=True,
            )
        )
        await store.close()
        recorder.datastore.close()
        print()
        print(header)
        print("\n".join(lines))
        print(
            "(par vs X: Parlor's speed relative to X; above 1.00x Parlor is faster. Goal: "
            ">= 1.00x vs eventsourcing, >= 0.50x vs raw inserts)"
        )


if __name__ == "__main__":
    asyncio.run(main())
