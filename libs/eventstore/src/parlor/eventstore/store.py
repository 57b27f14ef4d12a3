"""The event store port: what services rely on, whichever store sits behind it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from parlor.eventstore.events import AppendResult, NewEvent, RecordedEvent, Snapshot


class EventStore(Protocol):
    """Streams of events with optimistic concurrency and one global, gap-free order."""

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        command_id: str | None = None,
        *,
        fingerprint: str | None = None,
    ) -> AppendResult:
        """Append after ``expected_version`` (``NO_STREAM`` to create, ``ANY_VERSION``).

        Raises ``Conflict`` if the stream is elsewhere. A ``command_id`` already
        applied to this stream returns the first result and appends nothing; with a
        ``fingerprint`` (of the command) other than the one stored with the id, it
        raises ``AlreadyExists COMMAND_ID_REUSED`` instead and appends nothing.
        """
        ...

    async def read_stream(
        self, stream_id: str, from_version: int = 0, to_version: int | None = None
    ) -> list[RecordedEvent]:
        """Events of one stream with ``from_version <= version <= to_version``."""
        ...

    async def command_result(self, stream_id: str, command_id: str) -> AppendResult | None:
        """What a command id already applied to this stream appended (with the fingerprint
        stored with it), or None."""
        ...

    async def stream_version(self, stream_id: str) -> int:
        """The last version of the stream; ``NO_STREAM`` (0) if it does not exist."""
        ...

    async def read_all(self, from_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to ``limit`` events with ``position >= from_position``, in commit order."""
        ...

    async def head_position(self) -> int:
        """The position of the last committed event (0 for an empty store)."""
        ...

    async def streams_touched(self, category: str, after: int, through: int) -> list[str]:
        """The ids of ``category``'s streams (``<category>-<id>``) with an event at a position
        in ``(after, through]``, each once, in the order of its first event there: which
        games a stretch of the global order touched, read in the store (the events of other
        categories and the events' data never leave it)."""
        ...

    def subscribe_all(self, from_position: int = 0) -> AsyncIterator[RecordedEvent]:
        """Every event from ``from_position`` on, waiting for new ones; never ends by itself."""
        ...

    async def save_snapshot(self, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` as the stream's latest, unless a newer one is already kept."""
        ...

    async def load_snapshot(self, stream_id: str) -> Snapshot | None:
        """The stream's latest snapshot, if any."""
        ...


class PartitionedOrder(Protocol):
    """The global order split into P partitions (``partitions.py``), each gap-free.

    With P = 1 partition 0 holds every event and reads as ``read_all`` does. With P > 1
    a consumer follows each partition with a cursor of its own: positions across
    partitions interleave, and one cursor over them could skip an event that commits late.
    """

    partitions: int

    async def read_partition(
        self, partition: int, from_position: int = 0, limit: int = 1000
    ) -> list[RecordedEvent]:
        """Up to ``limit`` events of ``partition`` with ``position >= from_position``, in
        that partition's commit order."""
        ...

    async def head_positions(self) -> tuple[int, ...]:
        """Each partition's last position (0 for an empty one), partition 0 first."""
        ...

    async def streams_touched(
        self, category: str, after: int, through: int, partition: int | None = None
    ) -> list[str]:
        """As ``EventStore.streams_touched``, within one partition's order when given."""
        ...
