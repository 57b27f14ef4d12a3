"""The deadline index: when each timed game next needs its clock (the sweepers' work list).

A port with two implementations tested by one test class: ``MemoryDeadlines`` for unit
tests, ``PostgresDeadlines`` on the ``game_deadlines`` table (eventstore migrations 0005,
0006). The index is only a hint: a sweeper decides every timeout on the game's own events.
``schedule`` keeps the row of the newest version it is told of, so a slow writer with
an older version cannot put back a deadline the game has moved past: a game with nothing
left to time keeps its row as a marker (deadline None, NULL in PostgreSQL), which ``due``
never lists. ``postpone`` moves a row the sweeper could not handle out of the way (and
drops the row of a game that does not exist), keeping its version, so the game's next
``schedule`` replaces it as usual and a later game of that id is scheduled as any other.
``retry_at`` makes a game the sweeper's recovery could not handle due by a time, whatever
its row (none, a marker, a later deadline), so the sweep tries it again; a new row has
version 0, so any note of the game replaces it.

The index also keeps each game type's **mark** (``covered``, ``cover``; the
``game_deadline_marks`` table, migration 0007): the store position up to which every game
is known noted. Notes are written apart from the appends (see ``PostgresDeadlines``), so
the notes of a replica that died may be lost; the sweeper's recovery notes again the
games after the mark, then raises it (``Sweeper.recover``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
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

    async def postpone(
        self, category: str, game_id: str, seen: datetime, until: datetime | None
    ) -> None:
        """Move the game's deadline to ``until`` (None: drop the row, no marker left) if it
        is still due at ``seen`` (a row a newer version moved on is left alone), keeping
        its version."""
        ...

    async def retry_at(self, category: str, game_id: str, at: datetime) -> None:
        """Make the game due by ``at``: a row with no deadline or a later one gets ``at``,
        keeping its version, and a game with no row gets one at version 0 (any note of the
        game replaces it)."""
        ...

    async def covered(self, category: str) -> int:
        """The mark: every game of ``category`` with an event at or before this position is
        noted at a version that includes it (0: no mark yet)."""
        ...

    async def cover(self, category: str, position: int) -> None:
        """Write this index's pending notes, then raise the mark to ``position`` (a lower
        one leaves it): the caller has noted every game with an event up to there."""
        ...


class MemoryDeadlines:
    def __init__(self) -> None:
        self._rows: dict[tuple[str, str], tuple[datetime | None, int]] = {}
        self._marks: dict[str, int] = {}

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

    async def postpone(
        self, category: str, game_id: str, seen: datetime, until: datetime | None
    ) -> None:
        key = (category, game_id)
        known = self._rows.get(key)
        if known is None or known[0] is None or known[0] > seen:
            return
        if until is None:
            del self._rows[key]
        else:
            self._rows[key] = (until, known[1])

    async def retry_at(self, category: str, game_id: str, at: datetime) -> None:
        key = (category, game_id)
        deadline, version = self._rows.get(key, (None, 0))
        if deadline is None or deadline > at:
            self._rows[key] = (at, version)

    async def covered(self, category: str) -> int:
        return self._marks.get(category, 0)

    async def cover(self, category: str, position: int) -> None:
        self._marks[category] = max(self._marks.get(category, 0), position)


_UPSERT = text(
    "INSERT INTO game_deadlines (category, game_id, deadline, version)"
    " SELECT * FROM unnest(CAST(:categories AS text[]), CAST(:game_ids AS text[]),"
    " CAST(:deadlines AS timestamptz[]), CAST(:versions AS bigint[]))"
    " ON CONFLICT (category, game_id) DO UPDATE SET deadline = excluded.deadline,"
    " version = excluded.version WHERE game_deadlines.version <= excluded.version"
)
# The notes are a hint (a crash may lose the last ones, see ``PostgresDeadlines``): their
# commit need not wait for the WAL to reach the disk. Every flush that waited took a WAL
# flush of its own, in the queue the appends' commits wait in, which hold the append lock.
_NO_FLUSH_WAIT = text("SET LOCAL synchronous_commit TO OFF")
_POSTPONE = text(
    "UPDATE game_deadlines SET deadline = :until WHERE category = :category"
    " AND game_id = :game_id AND deadline <= :seen"
)
_DROP = text(
    "DELETE FROM game_deadlines WHERE category = :category AND game_id = :game_id"
    " AND deadline <= :seen"
)
_RETRY_AT = text(
    "INSERT INTO game_deadlines (category, game_id, deadline, version)"
    " VALUES (:category, :game_id, :at, 0) ON CONFLICT (category, game_id)"
    " DO UPDATE SET deadline = excluded.deadline WHERE game_deadlines.deadline IS NULL"
    " OR game_deadlines.deadline > excluded.deadline"
)
_COVERED = text("SELECT position FROM game_deadline_marks WHERE category = :category")
_COVER = text(
    "INSERT INTO game_deadline_marks (category, position, updated_at)"
    " VALUES (:category, :position, now()) ON CONFLICT (category) DO UPDATE"
    " SET position = excluded.position, updated_at = excluded.updated_at"
    " WHERE game_deadline_marks.position < excluded.position"
)
_DUE = text(
    "SELECT game_id FROM game_deadlines WHERE category = :category"
    " AND deadline IS NOT NULL AND deadline <= :at ORDER BY deadline LIMIT :limit"
)

Row = tuple[datetime | None, int]
_UNAVAILABLE = (OperationalError, DBAPIError, PoolTimeout, OSError)
"""The database down, or no pooled connection in time (the pool exhausted under load)."""


class PostgresDeadlines:
    """The index on ``game_deadlines``. ``schedule`` only notes the row (the move path waits
    for no write); the notes of ``flush_seconds`` are written in one statement, and ``due``
    writes this replica's notes first. A crash may lose the last notes: the rows they
    would have replaced stay, and the sweeper corrects a row at its next visit; a game
    left with no row, or only a marker, is found by the sweepers' recovery, which reads
    the games after the mark (``cover``: this index's notes, then the mark). So a
    flush commits without waiting for the disk (``synchronous_commit`` off for its
    transaction): a crash loses at most what PostgreSQL's WAL writer had not written yet
    (about 0.2 s), which is the loss already allowed, and the appends' commits, which
    wait for the disk holding the store's append lock, no longer queue behind the notes'
    (a flush per game type and worker every 0.05 s before: up to 120 commits/s from a
    two-worker platform under load, each waiting for the disk).

    The notes of 0.5 s go in one flush: a deadline is seconds or minutes away, and the
    sweeper of this replica flushes first anyway; another replica's sweeper may see a
    row up to that much older, and decides on the game's events, as always."""

    def __init__(self, engine: AsyncEngine, flush_seconds: float = 0.5) -> None:
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
            rows = list(pending.items())  # a None deadline is written as the NULL marker
            try:
                async with self.engine.begin() as conn:
                    await conn.execute(_NO_FLUSH_WAIT)
                    await conn.execute(
                        _UPSERT,
                        {
                            "categories": [k[0] for k, _ in rows],
                            "game_ids": [k[1] for k, _ in rows],
                            "deadlines": [v[0] for _, v in rows],
                            "versions": [v[1] for _, v in rows],
                        },
                    )
            except _UNAVAILABLE as exc:
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
        except _UNAVAILABLE as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc
        return [row[0] for row in rows]

    async def postpone(
        self, category: str, game_id: str, seen: datetime, until: datetime | None
    ) -> None:
        await self.flush()  # this replica's notes first: a newer version's row is kept
        params = {"category": category, "game_id": game_id, "seen": seen, "until": until}
        try:
            async with self.engine.begin() as conn:
                await conn.execute(_DROP if until is None else _POSTPONE, params)
        except _UNAVAILABLE as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc

    async def retry_at(self, category: str, game_id: str, at: datetime) -> None:
        await self.flush()  # this replica's notes first: none flushed later replaces the row
        params = {"category": category, "game_id": game_id, "at": at}
        try:
            async with self.engine.begin() as conn:
                await conn.execute(_RETRY_AT, params)
        except _UNAVAILABLE as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc

    async def covered(self, category: str) -> int:
        try:
            async with self.engine.connect() as conn:
                found = (await conn.execute(_COVERED, {"category": category})).scalar()
        except _UNAVAILABLE as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc
        return int(found or 0)

    async def cover(self, category: str, position: int) -> None:
        """The pending notes first, then the mark, in a transaction that waits for the disk
        (``synchronous_commit`` as configured): the WAL is written in order, so once the mark
        is on disk the notes' commit before it is too, though it did not wait."""
        await self.flush()
        try:
            async with self.engine.begin() as conn:
                await conn.execute(_COVER, {"category": category, "position": position})
        except _UNAVAILABLE as exc:
            raise Unavailable(f"the deadline index is unavailable: {exc}") from exc

    async def close(self) -> None:
        """Write what is pending (at shutdown)."""
        if self._flusher is not None:
            self._flusher.cancel()
        await self.flush()
