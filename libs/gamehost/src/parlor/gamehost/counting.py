"""The event store as game services open it: appends and conflicts counted.

Every game's component opens this store (``parlor.gamehost.component``): appends count in
``parlor_game_appends_total{category}`` on ``/metrics`` (conflicts already count in
``parlor_append_conflicts_total{category}``, where every store appends), and the store
keeps its own totals, ``appends`` and ``conflicts``, that the load test and the benchmark
read from a component's ``extra["store"]``.
"""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import Counter
from sqlalchemy.ext.asyncio import AsyncConnection

from parlor.core.errors import Conflict
from parlor.eventstore import AppendResult, NewEvent, PostgresEventStore
from parlor.eventstore.events import split_stream_id

APPENDS = Counter(
    "parlor_game_appends_total",
    "Appends a game service attempted (conflicts, decided again, included), by category.",
    ["category"],
)


class CountingStore(PostgresEventStore):
    """A PostgreSQL store that counts appends and optimistic-concurrency conflicts."""

    appends = 0
    conflicts = 0

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        command_id: str | None = None,
        *,
        fingerprint: str | None = None,
        connection: AsyncConnection | None = None,
    ) -> AppendResult:
        self.appends += 1
        APPENDS.labels(split_stream_id(stream_id)[0]).inc()
        try:
            return await super().append(
                stream_id,
                events,
                expected_version,
                command_id,
                fingerprint=fingerprint,
                connection=connection,
            )
        except Conflict:
            self.conflicts += 1
            raise
