"""The deadline index: when each timed game next needs its clock (the sweepers' work list).

A port with two implementations tested by one test class: ``MemoryDeadlines`` for unit
tests, ``PostgresDeadlines`` on the ``game_deadlines`` table (eventstore migration 0005).
The index is only a hint: a sweeper decides every timeout on the game's own events.
``schedule`` keeps the row of the newest version it is told of, so a slow writer with
an older version cannot put back a deadline the game has moved past.
"""

from __future__ import annotations

import asyncio
import contextlib
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
    " SELECT * FROM unnest(CAST(:categories AS text[]), CAST(:game_ids AS text[]),"
    " CAST(:deadlines AS timestamptz[]), CAST(:versions AS bigint[]))"
    " ON CONFLICT (category, game_id) DO UPDATE SET deadline = excluded.deadline,"
    " version = excluded.version WHERE game_deadlines.version <= excluded.version"
)
_DELETE = text(
    "DELETE FROM game_deadlines d USING unnest(CAST(:categories AS text[]),"
    " CAST(:game_ids AS text[]), CAST(:versions AS bigint[])) AS g(category, game_id, version)"
    " WHERE d.category = g.category AND d.game_id = g.game_id AND d.version <= g.version"
)
_DUE = text(
    "SELECT game_id FROM game_deadlines WHERE category = :category AND deadline <= :at"
    " ORDER BY deadline LIMIT :limit"
)

Row = tuple[datetime | None, int]


class PostgresDeadlines:
    """The index on ``game_deadlines``. ``schedule`` only notes the row (the move path waits
    for no write); the notes of ``flush_seconds`` are written in one statement, and ``due``
    writes this replica's notes first. A crash may lose the last notes: the rows they
    would have replaced stay, and the sweeper corrects a row at its next visit."""

    def __init__(self, engine: AsyncEngine, flush_seconds: float = 0.05) -> None:
        self.engine = engine
        self.flush_seconds = flush_seconds
        self._pending: dict[tuple[str, str], Row] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def schedule(
        self, category: str, game_id: str, deadline: datetime | None, version: int
    ) -> None:
        key = (category, game_id)
        known = self._pending.get(key)
        if known is None or known[1] <= version:
            self._pending[key] = (deadline, version)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(self.flush_seconds)
        with contextlib.suppress(Unavailable):  # the notes stay pending for the next flush
            await self.flush()

    async def flush(self) -> None:
        """Write every pending note now."""
        async with self._lock:
            pending, self._pending = self._pending, {}
            if not pending:
                return
            upserts = [(k, v) for k, v in pending.items() if v[0] is not None]
            deletes = [(k, v) for k, v in pending.items() if v[0] is None]
            try:
                async with self.engine.begin() as conn:
                    if upserts:
                        await conn.execute(
                            _UPSERT,
                            {
                                "categories": [k[0] for k, _ in upserts],
                                "game_ids": [k[1] for k, _ in upserts],
                                "deadlines": [v[0] for _, v in upserts],
                                "versions": [v[1] for _, v in upserts],
                            },
                        )
                    if deletes:
                        await conn.execute(
                            _DELETE,
                            {
                                "categories": [k[0] for k, _ in deletes],
                                "game_ids": [k[1] for k, _ in deletes],
                                "versions": [v[1] for _, v in deletes],
                            },
                        )
            except (OperationalError, DBAPIError, OSError) as exc:
                for key, row in pending.items():  # put back what is not newer already
                    known = self._pending.get(key)
                    if known is None or known[1] < row[1]:
                        self._pending[key] = row
                raise Unavailable(f"the deadline index is unavailable: {exc}") from exc

    async def due(self, category: str, at: datetime, limit: int = 100) -> Sequence[str]:
        await self.flush()
        try:
            async with self.engine.connect() as conn:
                rows = (
                    await conn.execute(_DUE, {"category": category, "at": at, "limit": limit})
                ).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc
        return [row[0] for row in rows]

    async def close(self) -> None:
        """Write what is pending (at shutdown)."""
        if self._flusher is not None:
            self._flusher.cancel()
        await self.flush()
