"""What only the real PostgreSQL store can show: concurrency, late commits, migrations, outages."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest

from parlor.core.errors import Conflict, Unavailable
from parlor.eventstore import (
    NO_STREAM,
    AppendResult,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
    migrate,
)
from parlor.eventstore.migrate import main as migrate_cli
from parlor.eventstore.partitions import partition_of

pytestmark = pytest.mark.integration


@pytest.fixture(params=[1, 4], ids=["P1", "P4"])
async def store(
    migrated_url: str, request: pytest.FixtureRequest
) -> AsyncIterator[PostgresEventStore]:
    """The store with its global order in one partition (today's) and split into four."""
    pg = PostgresEventStore(migrated_url, pool_size=24, max_overflow=0, partitions=request.param)
    try:
        yield pg
    finally:
        await pg.close()


async def test_twenty_writers_racing_for_one_version_one_wins_nineteen_conflict(
    store: PostgresEventStore, unique: str
) -> None:
    stream = f"game-{unique}"
    start = asyncio.Event()

    async def writer(n: int) -> str:
        await start.wait()
        try:
            await store.append(stream, [NewEvent("GameCreated", str(n).encode())], NO_STREAM)
            return "won"
        except Conflict:
            return "conflict"

    tasks = [asyncio.create_task(writer(n)) for n in range(20)]
    await asyncio.sleep(0.05)
    start.set()
    outcomes = await asyncio.gather(*tasks)
    assert outcomes.count("won") == 1
    assert outcomes.count("conflict") == 19
    assert len(await store.read_stream(stream)) == 1


async def test_twenty_concurrent_writers_on_one_stream_write_each_version_exactly_once(
    store: PostgresEventStore, unique: str
) -> None:
    stream = f"game-{unique}"
    per_writer = 5
    conflicts = 0

    async def writer(n: int) -> None:
        nonlocal conflicts
        written = 0
        while written < per_writer:
            version = await store.stream_version(stream)
            try:
                await store.append(stream, [NewEvent("Moved", f"{n}:{written}".encode())], version)
                written += 1
            except Conflict:
                conflicts += 1

    await asyncio.gather(*(writer(n) for n in range(20)))
    events = await store.read_stream(stream)
    assert [e.version for e in events] == list(range(1, 20 * per_writer + 1))
    payloads = sorted(e.data for e in events)
    assert payloads == sorted(f"{n}:{i}".encode() for n in range(20) for i in range(per_writer))
    assert conflicts > 0  # the race really happened


@pytest.mark.parametrize("partitions", [1, 4], ids=["P1", "P4"])
async def test_reader_following_global_order_sees_every_event_once_despite_late_commits(
    fresh_url: str, partitions: int
) -> None:
    """Writers hold their transaction open after appending; positions still follow commits.

    With the order split into partitions, one reader follows each partition's order."""
    store = PostgresEventStore(fresh_url, pool_size=12, max_overflow=0, partitions=partitions)
    writers, per_writer = 8, 40
    done = asyncio.Event()
    seen: list[RecordedEvent] = []
    rng = random.Random(3)

    async def writer(n: int) -> None:
        stream = f"game-w{n}"
        for i in range(per_writer):
            batch = [NewEvent("Moved", f"{n}:{i}:{k}".encode()) for k in range(1 + i % 3)]
            if i % 2:
                # Commit late: the append is done, the transaction stays open a while.
                async with store.engine.begin() as conn:
                    await store.append(
                        stream, batch, await store.stream_version(stream), connection=conn
                    )
                    await asyncio.sleep(rng.uniform(0, 0.01))
            else:
                await store.append(stream, batch, await store.stream_version(stream))
            await asyncio.sleep(rng.uniform(0, 0.003))

    async def read(position: int, partition: int) -> list[RecordedEvent]:
        if partitions == 1:
            return await store.read_all(position, limit=25)
        return await store.read_partition(partition, position, limit=25)

    async def reader(partition: int = 0) -> None:
        position = 1
        while True:
            finished = done.is_set()
            batch = await read(position, partition)
            for event in batch:
                assert event.position >= position, "global order went backwards"
                seen.append(event)
                position = event.position + 1
            if finished and not batch:
                return
            if not batch:
                await asyncio.sleep(0.001)

    try:
        following = [asyncio.create_task(reader(p)) for p in range(partitions)]
        await asyncio.gather(*(writer(n) for n in range(writers)))
        done.set()
        await asyncio.wait_for(asyncio.gather(*following), 30)
        everything = await store.read_all(1, limit=100_000)
        by_partition = [await store.read_partition(p, 1, 100_000) for p in range(partitions)]
    finally:
        await store.close()

    keys = [(e.stream_id, e.version) for e in seen]
    assert len(keys) == len(set(keys)), "an event was seen twice"
    order = [(e.stream_id, e.version) for p in by_partition for e in p]
    assert sorted(keys) == sorted(order), "an event was skipped"
    for partition in by_partition:  # each partition's order as its reader saw it
        mine = [(e.stream_id, e.version) for e in partition]
        assert [k for k in keys if k in set(mine)] == mine
    assert sorted(order) == sorted((e.stream_id, e.version) for e in everything)
    if partitions > 1:
        assert sum(1 for p in by_partition if p) > 1, "the streams all hashed to one partition"
    assert len(everything) == sum(1 + i % 3 for i in range(per_writer)) * writers
    for n in range(writers):
        versions = [e.version for e in seen if e.stream_id == f"game-w{n}"]
        assert versions == list(range(1, len(versions) + 1))


async def test_concurrent_retries_of_one_command_append_once_and_all_get_the_first_result(
    store: PostgresEventStore, unique: str
) -> None:
    stream = f"game-{unique}"
    await store.append(stream, [NewEvent("GameCreated", b"")], NO_STREAM)
    events = [NewEvent("TilesPlaced", b"x"), NewEvent("TilesDrawn", b"y")]
    results = await asyncio.gather(
        *(store.append(stream, events, 1, command_id="play-1") for _ in range(12))
    )
    assert sum(not r.duplicate for r in results) == 1
    assert {
        (r.first_version, r.last_version, r.first_position, r.last_position) for r in results
    } == {(results[0].first_version, 3, results[0].first_position, results[0].first_position + 1)}
    assert await store.stream_version(stream) == 3


async def test_append_joined_to_a_rolled_back_transaction_leaves_nothing(
    store: PostgresEventStore, unique: str
) -> None:
    stream = f"game-{unique}"

    async with store.engine.connect() as conn:
        transaction = await conn.begin()
        await store.append(stream, [NewEvent("A", b"")], NO_STREAM, "c1", connection=conn)
        await transaction.rollback()
    assert await store.stream_version(stream) == 0
    again = await store.append(stream, [NewEvent("A", b"")], NO_STREAM, command_id="c1")
    assert not again.duplicate


@pytest.fixture
async def listener(migrated_url: str) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """A connection that LISTENs on the doorbell's channel."""
    conn = await psycopg.AsyncConnection.connect(migrated_url, autocommit=True)
    try:
        await conn.execute("LISTEN parlor_events")
        yield conn
    finally:
        await conn.close()


async def _next_ring(conn: psycopg.AsyncConnection[Any], seconds: float) -> psycopg.Notify | None:
    """The next notification on the doorbell's channel, or None after ``seconds``."""
    try:
        async with asyncio.timeout(seconds):
            async for notify in conn.notifies():
                return notify
    except TimeoutError:
        return None
    return None


async def test_appends_ring_the_doorbell_after_their_commit_not_inside_it(
    store: PostgresEventStore, listener: psycopg.AsyncConnection[Any], unique: str
) -> None:
    """The NOTIFY comes from the store's ringer, once the append has committed: a notifying
    transaction holds PostgreSQL's cluster-wide notification lock until its commit returns,
    so a NOTIFY inside the append would serialise every append (docs/scale.md)."""
    await store.append(f"game-{unique}", [NewEvent("A", b"")], NO_STREAM)
    ring = await _next_ring(listener, 5)
    assert ring is not None, "an append rang nobody"
    for _ in range(200):  # the ring reaches the listener before its statement returns
        if store.ringer.backend_pid is not None:
            break
        await asyncio.sleep(0.01)
    assert ring.pid == store.ringer.backend_pid  # a ring's own statement, after the commit
    # a burst of appends shares rings: one at a time, the next after the last commit
    before = store.ringer.rings
    await asyncio.gather(
        *(store.append(f"game-{unique}-{n}", [NewEvent("A", b"")], NO_STREAM) for n in range(40))
    )
    assert await _next_ring(listener, 5) is not None
    assert 1 <= store.ringer.rings - before <= 40


async def test_an_append_joined_to_a_transaction_rings_when_that_transaction_commits(
    store: PostgresEventStore, listener: psycopg.AsyncConnection[Any], unique: str
) -> None:
    async with store.engine.connect() as conn:
        transaction = await conn.begin()
        await store.append(f"game-{unique}", [NewEvent("A", b"")], NO_STREAM, connection=conn)
        assert await _next_ring(listener, 0.3) is None  # not committed yet
        await transaction.commit()
    assert await _next_ring(listener, 5) is not None


async def test_a_ring_whose_connection_died_is_rung_again_at_the_next_append(
    store: PostgresEventStore, listener: psycopg.AsyncConnection[Any], unique: str
) -> None:
    await store.append(f"game-{unique}", [NewEvent("A", b"")], NO_STREAM)
    assert await _next_ring(listener, 5) is not None
    dead = store.ringer.backend_pid
    await listener.execute("SELECT pg_terminate_backend(%s)", (dead,))
    rung, version = None, 1
    for _ in range(6):  # the first ring after the kill may be lost (logged)
        try:
            await store.append(f"game-{unique}", [NewEvent("A", b"")], version)
        except Unavailable:
            continue  # the append met the killed connection first: retried, as clients do
        version += 1
        rung = await _next_ring(listener, 2)
        if rung is not None:
            break
    assert rung is not None
    assert rung.pid != dead


async def test_migrations_run_twice_and_concurrently_leave_one_schema(fresh_url: str) -> None:
    await asyncio.gather(*(migrate(fresh_url) for _ in range(4)))
    await migrate(fresh_url)
    assert migrate_cli([fresh_url]) == 0
    with psycopg.connect(fresh_url) as conn:
        versions = conn.execute("SELECT version_num FROM parlor_eventstore_alembic_version")
        assert versions.fetchall() == [("0010",)]  # the head revision
        tables = {
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert {
        "events",
        "event_commands",
        "relay_checkpoints",
        "relay_leases",
        "relay_members",
        "relay_dead_letters",
        "inbox",
        "snapshots",
        "game_deadline_marks",
    } <= tables


async def test_lost_database_is_unavailable_not_a_crash() -> None:
    store = PostgresEventStore("postgresql://postgres@127.0.0.1:1/nowhere", pool_timeout=0.5)
    try:
        with pytest.raises(Unavailable) as caught:
            await store.append("game-x", [NewEvent("A", b"")], NO_STREAM)
        assert caught.value.code == "UNAVAILABLE"
        with pytest.raises(Unavailable):
            await store.read_stream("game-x")
    finally:
        await store.close()


def test_append_lock_in_the_migration_is_the_one_the_code_names() -> None:
    from importlib.resources import files

    from parlor.eventstore.schema import APPEND_LOCK

    migration = files("parlor.eventstore") / "migrations" / "versions" / "0001_events.py"
    assert f"pg_advisory_xact_lock({APPEND_LOCK})" in migration.read_text()


async def test_appends_committed_together_are_each_checked_on_their_own(
    store: PostgresEventStore, unique: str
) -> None:
    # three streams of one partition: a batch is one partition's (P4: the others go apart)
    names = (f"game-{unique}{n}" for n in range(1000))
    first_name = next(names)
    home = partition_of(first_name, store.partitions)
    a, b, c = first_name, *[n for n in names if partition_of(n, store.partitions) == home][:2]
    calls: list[int] = []
    group_commit = store._group_commit(home)
    execute = group_commit._execute

    async def spy(sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        calls.append(len(params["stream_ids"]))
        return await execute(sql, params)

    group_commit._execute = spy
    results = await asyncio.gather(
        store.append(a, [NewEvent("A1", b""), NewEvent("A2", b"")], NO_STREAM),
        store.append(a, [NewEvent("X", b"")], NO_STREAM),
        store.append(b, [NewEvent("B", b"")], 5),
        store.append(c, [NewEvent("C", b"")], NO_STREAM, command_id="once"),
        store.append(c, [NewEvent("C", b"")], NO_STREAM, command_id="once"),
        store.append(a, [NewEvent("A3", b"")], 2),
        return_exceptions=True,
    )
    assert calls == [1, 5]  # the first went at once; the rest waited for it, together
    first, clash, wrong, created, retried, later = results
    assert isinstance(first, AppendResult)
    assert (first.first_version, first.last_version) == (1, 2)
    assert isinstance(clash, Conflict)
    assert isinstance(wrong, Conflict)
    assert isinstance(created, AppendResult)
    assert isinstance(retried, AppendResult)
    assert not created.duplicate
    assert retried.duplicate
    assert retried.positions == created.positions
    assert isinstance(later, AppendResult)
    assert later.first_version == 3
    assert [e.type for e in await store.read_stream(a)] == ["A1", "A2", "A3"]
    assert await store.stream_version(b) == 0
    assert [e.type for e in await store.read_stream(c)] == ["C"]
