"""The global order split into partitions: locks apart, each order gap-free, in place.

What the split promises (docs/scale.md, ``partitions.py``): appends to different
partitions do not wait for one another's lock; a stream stays in the partition of its
first event whatever P says later; a database of the release before migrates in place,
its events in partition 0, and that release's processes keep appending during a rolling
upgrade, under partition 0's lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest

from parlor.eventstore import NO_STREAM, InMemoryEventStore, NewEvent, PostgresEventStore
from parlor.eventstore.migrate import migrate_blocking
from parlor.eventstore.partitions import partition_of
from parlor.eventstore.schema import APPEND_LOCK

pytestmark = pytest.mark.integration

# The append as the release before revision 0009 calls it (no partition argument).
OLD_APPEND = (
    "SELECT r_outcome, r_first_position FROM parlor_append(%(stream_ids)s::text[],"
    " %(expected)s::bigint[], %(command_ids)s::text[], %(requests)s::integer[],"
    " %(offsets)s::integer[], %(types)s::text[], %(schema_versions)s::integer[],"
    " %(data)s::bytea[], %(actors)s::text[], %(causation_ids)s::text[],"
    " %(correlation_ids)s::text[], %(extras)s::jsonb[], %(fingerprints)s::text[])"
)


def old_append(url: str, stream: str, expected: int) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            OLD_APPEND,
            {
                "stream_ids": [stream],
                "expected": [expected],
                "command_ids": [None],
                "requests": [1],
                "offsets": [1],
                "types": ["Moved"],
                "schema_versions": [1],
                "data": [b"old"],
                "actors": [None],
                "causation_ids": [None],
                "correlation_ids": [None],
                "extras": [None],
                "fingerprints": [None],
            },
        ).fetchone()
    assert row is not None
    return str(row[0])


def named(partition: int, partitions: int, prefix: str) -> str:
    """A stream id whose hash puts it in ``partition`` of ``partitions``."""
    for n in range(10_000):
        name = f"game-{prefix}{n}"
        if partition_of(name, partitions) == partition:
            return name
    raise AssertionError("no name found")


@pytest.fixture
def old_database(backends: object) -> Iterator[str]:
    """A database at revision 0008 (the release before the split)."""
    from parlor.devinfra.backends import Backends, scratch_database
    from parlor.devinfra.scratch import scratch_name

    assert isinstance(backends, Backends)
    with scratch_database(backends.database_url, scratch_name("test")) as url:
        migrate_blocking(url, "0008")
        yield url


async def test_a_database_of_the_release_before_migrates_in_place_and_keeps_its_streams(
    old_database: str, unique: str
) -> None:
    old_streams = [f"game-{unique}old{n}" for n in range(12)]
    for stream in old_streams:
        assert old_append(old_database, stream, 0) == "appended"
    migrate_blocking(old_database)
    # a process of the release before, mid rolling upgrade: still appends, to partition 0
    assert old_append(old_database, old_streams[0], 1) == "appended"

    store = PostgresEventStore(old_database, partitions=4)
    try:
        assert len(await store.read_partition(0, 1, 1000)) == 13
        moved = [s for s in old_streams if partition_of(s, 4) != 0]
        assert moved, "every old stream hashed to partition 0"
        for stream in old_streams:
            version = await store.stream_version(stream)
            result = await store.append(stream, [NewEvent("Moved", b"new")], version)
            assert result.first_version == version + 1
        fresh = named(3, 4, f"{unique}new")
        await store.append(fresh, [NewEvent("GameCreated", b"")], NO_STREAM)
        partition_zero = await store.read_partition(0, 1, 1000)
        assert {e.stream_id for e in partition_zero} == set(old_streams)
        assert len(partition_zero) == 13 + len(old_streams)
        assert [e.stream_id for e in await store.read_partition(3, 1, 1000)] == [fresh]
        heads = await store.head_positions()
        assert heads[0] == partition_zero[-1].position
        assert heads[1:3] == (0, 0)
        assert heads[3] > heads[0]
        # what it learned: the second append to a moved stream goes straight to its home
        assert set(store._homes) == set(moved)
    finally:
        await store.close()


async def test_an_append_of_another_partition_does_not_wait_for_a_held_lock(
    migrated_url: str, unique: str
) -> None:
    """Partition 0's lock held by a slow commit: partition 1's append goes by; P=1 waits."""
    split = PostgresEventStore(migrated_url, partitions=2)
    single = PostgresEventStore(migrated_url, partitions=1)
    holder = await psycopg.AsyncConnection.connect(migrated_url)
    try:
        async with holder.transaction():
            await holder.execute("SELECT pg_advisory_xact_lock(%s)", [APPEND_LOCK])
            other = named(1, 2, f"{unique}b")
            result = await asyncio.wait_for(
                split.append(other, [NewEvent("GameCreated", b"")], NO_STREAM), 10
            )
            assert result.first_version == 1
            waiting = asyncio.create_task(
                single.append(f"game-{unique}c", [NewEvent("GameCreated", b"")], NO_STREAM)
            )
            same = asyncio.create_task(
                split.append(named(0, 2, f"{unique}a"), [NewEvent("GameCreated", b"")], NO_STREAM)
            )
            await asyncio.sleep(0.5)
            assert not waiting.done(), "went by a held lock"
            assert not same.done(), "went by a held lock"
        assert (await asyncio.wait_for(waiting, 10)).first_version == 1
        assert (await asyncio.wait_for(same, 10)).first_version == 1
    finally:
        await holder.close()
        await split.close()
        await single.close()


async def test_the_in_memory_store_splits_the_order_as_postgres_does(unique: str) -> None:
    memory = InMemoryEventStore(partitions=4)
    streams = [f"game-{unique}{n}" for n in range(16)]
    for stream in streams:
        await memory.append(stream, [NewEvent("GameCreated", b"")], NO_STREAM)
        await memory.append(stream, [NewEvent("Moved", b"")], 1)
    seen = []
    for partition in range(4):
        events = await memory.read_partition(partition, 1, 1000)
        assert all(partition_of(e.stream_id, 4) == partition for e in events)
        assert [e.position for e in events] == sorted(e.position for e in events)
        seen += events
    assert len(seen) == 32
    heads = await memory.head_positions()
    assert max(heads) == 32
    touched = await memory.streams_touched("game", 0, 32, partition=2)
    assert touched == [s for s in streams if partition_of(s, 4) == 2]
