"""A game's length is bounded: at most ``MAX_EVENTS_PER_GAME`` events (docs/bounds.md).

Every read a player can start costs at most what a game holds (a watch from the start, a
history page by page, an export), so a game must not grow without end: a guest against
bots placing and taking back one tile made 2,900 events a minute. A game's host writes
through ``LengthCapped``: an append that would take the stream past the cap is refused
with ``RESOURCE_EXHAUSTED`` ``GAME_TOO_LONG`` (metadata ``max_events``), nothing written.

A game at its cap can still be left and finished: an append that ends the game or takes a
seat out of it (one of its events a ``GameFinished``, a resignation, a forfeit: Take Four's
``Leave``, a timeout, or Take Four's idle step towards a forfeit on time), with what follows
from that in the same decision, may go up to ``LEAVING_RESERVE`` events past the cap, so a
player is never held in a game they cannot resign (it counts among their open games until
then), and the clocks and the walked-away rule still end a game nobody resigns.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import cast

from parlor.core.errors import ResourceExhausted
from parlor.eventstore import AppendResult, EventStore, NewEvent, RecordedEvent, Snapshot
from parlor.eventstore.cursors import heads, partitions_of
from parlor.eventstore.store import PartitionedOrder

MAX_EVENTS_PER_GAME = 10_000
"""The most events a game holds (its versions are 1 to this). A long Take Four race with
eight seats makes some hundreds of events a round; a game of Upwords or Connect 4x4 some
hundreds in all."""

LEAVING_RESERVE = 100
"""Events past the cap that ending the game or leaving it may still append."""

_LEAVING_SUFFIXES = ("GameFinished", "Resigned", "Forfeited", "TimedOut", "SeatIdle")
"""The event types (by the last part of their protobuf name) that end a game or take a seat
out of it: the platform's ``GameFinished``, every game's resignation and timeout, Take Four's
forfeit and the idle steps (at most three a seat) that lead to its forfeit on time. Without
the timeouts a timed game at its cap could never end: its sweeper's timeout was refused."""


def leaving(event_type: str) -> bool:
    """Whether an event of this type ends the game or takes a seat out of it."""
    return event_type.rsplit(".", 1)[-1].endswith(_LEAVING_SUFFIXES)


def too_long(stream_id: str, max_events: int) -> ResourceExhausted:
    return ResourceExhausted(
        f"{stream_id} has reached the most events a game may hold ({max_events}):"
        " no more moves are taken; a seat may still resign",
        reason="GAME_TOO_LONG",
        metadata={"max_events": str(max_events)},
    )


class LengthCapped:
    """An event store whose appends keep each stream within ``max_events`` (0: no cap)."""

    def __init__(self, store: EventStore, max_events: int = MAX_EVENTS_PER_GAME) -> None:
        self.inner = store
        self.max_events = max_events

    def check(self, stream_id: str, expected_version: int, events: Sequence[NewEvent]) -> None:
        """Refuse an append past the cap (see the module's doc); ``ANY_VERSION`` appends
        are the platform's and not counted here."""
        cap = self.max_events
        if cap <= 0 or expected_version < 0 or expected_version + len(events) <= cap:
            return
        if expected_version + len(events) <= cap + LEAVING_RESERVE and any(
            leaving(e.type) for e in events
        ):
            return
        raise too_long(stream_id, cap)

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        command_id: str | None = None,
        *,
        fingerprint: str | None = None,
    ) -> AppendResult:
        self.check(stream_id, expected_version, events)
        return await self.inner.append(
            stream_id, events, expected_version, command_id, fingerprint=fingerprint
        )

    async def read_stream(
        self, stream_id: str, from_version: int = 0, to_version: int | None = None
    ) -> list[RecordedEvent]:
        return await self.inner.read_stream(stream_id, from_version, to_version)

    async def command_result(self, stream_id: str, command_id: str) -> AppendResult | None:
        return await self.inner.command_result(stream_id, command_id)

    async def stream_version(self, stream_id: str) -> int:
        return await self.inner.stream_version(stream_id)

    async def read_all(self, from_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        return await self.inner.read_all(from_position, limit)

    async def head_position(self) -> int:
        return await self.inner.head_position()

    async def streams_touched(
        self, category: str, after: int, through: int, partition: int | None = None
    ) -> list[str]:
        if partition is None:
            return await self.inner.streams_touched(category, after, through)
        return await cast(PartitionedOrder, self.inner).streams_touched(
            category, after, through, partition
        )

    # The partitioned order (``PartitionedOrder``), as the store behind reads it: the
    # consumers of the store by position (the sweeper's recovery) follow each partition.
    @property
    def partitions(self) -> int:
        return partitions_of(self.inner)

    async def read_partition(
        self, partition: int, from_position: int = 0, limit: int = 1000
    ) -> list[RecordedEvent]:
        return await cast(PartitionedOrder, self.inner).read_partition(
            partition, from_position, limit
        )

    async def head_positions(self) -> tuple[int, ...]:
        return await heads(self.inner)

    def subscribe_all(self, from_position: int = 0) -> AsyncIterator[RecordedEvent]:
        return self.inner.subscribe_all(from_position)

    async def save_snapshot(self, snapshot: Snapshot) -> None:
        await self.inner.save_snapshot(snapshot)

    async def load_snapshot(self, stream_id: str) -> Snapshot | None:
        return await self.inner.load_snapshot(stream_id)
