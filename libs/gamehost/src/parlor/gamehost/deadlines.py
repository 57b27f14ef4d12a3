"""The deadline index: when each timed game next needs its clock (the sweepers' work list).

A port with two implementations tested by one test class: ``MemoryDeadlines`` for unit
tests, ``PostgresDeadlines`` on the ``game_deadlines`` table (eventstore migration 0005).
The index is only a hint: a sweeper decides every timeout on the game's own events.
``schedule`` keeps the row of the newest version it is told of, so a slow writer with
an older version cannot put back a deadline the game has moved past.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from parlor.core.errors import Unavailable


class DeadlineIndex(Protocol):
    async def schedule(
        self, category: str, game_id: str, deadline: datetime | None, version: int
    ) -> None:
        """Record the game's next deadline as of ``version`` (None: nothing left to time)."""
        ...

    async def due(self, category: str, at: datetime, limit: int = 100) -> Sequence[str]:
        """Games of ``category`` with a deadline at or before ``at``, earliest first."""
        ...


class MemoryDeadlines:
    def __init__(self) -> None:
        self._rows: dict[tuple[str, str], tuple[datetime | None, int]] = {}

    async def schedule(
        self, category: str, game_id: str, deadline: datetime | None, version: int
    ) -> None:
        key = (category, game_id)
        known = self._rows.get(key)
        if known is not None and known[1] > version:
            return
        self._rows[key] = (deadline, version)

    async def due(self, category: str, at: datetime, limit: int = 100) -> Sequence[str]:
        found = sorted(
            (deadline, game_id)
            for (cat, game_id), (deadline, _) in self._rows.items()
            if cat == category and deadline is not None and deadline <= at
        )
        return [game_id for _, game_id in found[:limit]]


_UPSERT = text(
    "INSERT INTO game_deadlines (category, game_id, deadline, version)"
    " VALUES (:category, :game_id, :deadline, :version)"
    " ON CONFLICT (category, game_id) DO UPDATE SET deadline = excluded.deadline,"
    " version = excluded.version WHERE game_deadlines.version <= excluded.version"
)
_DELETE = text(
    "DELETE FROM game_deadlines WHERE category = :category AND game_id = :game_id"
    " AND version <= :version"
)
_DUE = text(
    "SELECT game_id FROM game_deadlines WHERE category = :category AND deadline <= :at"
    " ORDER BY deadline LIMIT :limit"
)


class PostgresDeadlines:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def schedule(
        self, category: str, game_id: str, deadline: datetime | None, version: int
    ) -> None:
        params = {"category": category, "game_id": game_id, "version": version}
        try:
            async with self.engine.begin() as conn:
                if deadline is None:
                    await conn.execute(_DELETE, params)
                else:
                    await conn.execute(_UPSERT, {**params, "deadline": deadline})
        except (OperationalError, DBAPIError, OSError) as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc

    async def due(self, category: str, at: datetime, limit: int = 100) -> Sequence[str]:
        try:
            async with self.engine.connect() as conn:
                rows = (
                    await conn.execute(_DUE, {"category": category, "at": at, "limit": limit})
                ).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc
        return [row[0] for row in rows]
