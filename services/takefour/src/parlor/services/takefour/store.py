"""The event store as this service uses it: appends and conflicts counted, for metrics and tests."""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import Counter
from sqlalchemy.ext.asyncio import AsyncConnection

from parlor.core.errors import Conflict
from parlor.eventstore import AppendResult, NewEvent, PostgresEventStore

APPENDS = Counter("parlor_takefour_appends_total", "Take Four appends attempted.")
CONFLICTS = Counter(
    "parlor_takefour_append_conflicts_total",
    "Take Four appends refused because another writer appended first (then decided again).",
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
        APPENDS.inc()
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
            CONFLICTS.inc()
            raise
