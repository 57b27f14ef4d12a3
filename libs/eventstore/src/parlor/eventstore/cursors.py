"""Cursors over the partitioned order: one position per partition, for consumers that
follow the store by position (the game directory, the sweepers' recovery, the turn feed,
the tournament catalogue).

With P = 1 a cursor is one position and every call is the one the consumer made before
(``head_position``, ``streams_touched`` of the global order), so a store of one partition
reads as it always did. With P > 1, where positions interleave across partitions and one
cursor could skip an event that commits late in another partition, each partition is
followed on its own (``PartitionedOrder``).

A cursor saved with fewer partitions (before P was raised) is ``widen``-ed: the new
partitions start from 0, which skips nothing (their events all came after the change).
Its saved name in a table of the consumer's (``partition_key``) is the consumer's own for
partition 0, so today's rows keep their meaning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from parlor.eventstore.store import EventStore, PartitionedOrder

Cursor = tuple[int, ...]
"""One position per partition, partition 0 first."""


def partitions_of(store: object) -> int:
    """The number of partitions ``store`` splits its order into (1 for a store that does not
    split it)."""
    return int(getattr(store, "partitions", 1))


def partition_key(name: str, partition: int) -> str:
    """The name under which a consumer called ``name`` keeps its cursor of ``partition``: its
    own for partition 0 (what it kept before partitions), ``name@p<partition>`` for others."""
    return name if partition == 0 else f"{name}@p{partition}"


async def heads(store: EventStore) -> Cursor:
    """Each partition's last position (0 for an empty one)."""
    if partitions_of(store) == 1:
        return (await store.head_position(),)
    return tuple(await cast(PartitionedOrder, store).head_positions())


def widen(cursor: Sequence[int], partitions: int) -> Cursor:
    """``cursor`` for ``partitions`` partitions: the ones it has no position for from 0."""
    return tuple(cursor[:partitions]) + (0,) * (partitions - len(cursor))


async def streams_touched(
    store: EventStore, category: str, after: int, through: int, partition: int
) -> list[str]:
    """``category``'s streams with an event in (``after``, ``through``] of ``partition``'s
    order (of the global order when the store has one partition)."""
    if partitions_of(store) == 1:
        return await store.streams_touched(category, after, through)
    return await cast(PartitionedOrder, store).streams_touched(
        category, after, through, partition=partition
    )


async def touched(
    store: EventStore, category: str, after: Sequence[int], through: Sequence[int]
) -> list[str]:
    """``category``'s streams with an event in (``after[p]``, ``through[p]``] of any
    partition p, each once (a stream lives in one partition), partition 0's first."""
    found: dict[str, None] = {}
    for partition, (start, end) in enumerate(zip(after, through, strict=True)):
        if end > start:
            for stream_id in await streams_touched(store, category, start, end, partition):
                found.setdefault(stream_id)
    return list(found)
