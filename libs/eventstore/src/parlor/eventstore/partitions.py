"""The global order split into partitions: which partition a stream's events go to.

A store is made with P, the number of partitions (``partitions``, 1 by default: one
order, today's lock, nothing changes). Each partition has its own append lock and its own
gap-free order by position, so appends to different partitions no longer wait for one
another; a consumer follows each partition with a cursor of its own (``read_partition``),
because across partitions positions interleave and a single cursor over them could skip
an event that commits late (docs/scale.md). The services make their stores with P from
``PARLOR_EVENT_PARTITIONS`` (1 by default): every consumer of the order they run follows
each partition (the relay's lanes, and ``cursors.py``: the game directory, the sweepers'
recovery, the turn feed, the tournament catalogue).

A stream's partition is a stable hash of its id, fixed by its first event: an append to a
stream that lives in another partition (P was changed since) is told ``moved`` by the
database and sent to that partition instead (``PostgresEventStore``).
"""

from __future__ import annotations

import hashlib

from parlor.core.errors import InvalidArgument

MAX_PARTITIONS = 1024


def partition_of(stream_id: str, partitions: int) -> int:
    """The partition a new stream goes to: the first 8 bytes of its id's SHA-256, mod P."""
    if partitions == 1:
        return 0
    digest = hashlib.sha256(stream_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") % partitions


def check_partitions(partitions: int) -> int:
    if not 1 <= partitions <= MAX_PARTITIONS:
        raise InvalidArgument(
            f"the number of event partitions must be between 1 and {MAX_PARTITIONS},"
            f" not {partitions}",
            reason="INVALID_EVENT_PARTITIONS",
        )
    return partitions
