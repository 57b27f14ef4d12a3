"""The list of games: a small projection of each stream's ``SeatsTaken`` and ``GameFinished``
(and of its departures: the game's events by which a seat leaves a game the others play on).

Listing games by player or time from the events table alone would mean decoding
the first event of every stream. Instead ``game_directory`` keeps one row per
game (players as an array with a GIN index, created and finished times with a
btree index per game type), fed from the global event order: a catch-up step
reads only ``SeatsTaken``/``GameFinished`` events between its checkpoint and the
head (a range of the events' primary key; the checkpoint then moves to the head,
so a quiet game type does not rescan other types' events) and writes rows and
checkpoint in one transaction, under an advisory lock per game type, so replicas
may catch up concurrently and a listing right after a game ends already shows it
(``list`` catches up first). ``open_games`` counts a player's unfinished games (the cap
on them: ``parlor.admission.opengames``), caught up first too, leaving out those the player
has left (``GameType.departures``: resigned from a game of three, left a race) while another
person plays on there: the others may play on for as long as they like, and the player can do
nothing more there. A game the player left where only bots (or people who left too) play on
still counts: it costs the platform until it ends. ``claiming`` serialises one player's
creations across processes (an advisory lock of the player's) and counts the games claimed
but not yet folded here (``game_open_claims``), so the cap holds under a burst. Every
directory of a game type must be made with the type's departures (``game_directory``):
they share one checkpoint. Unfinished rows have partial
indexes of their own (by time, by player): a player's games in progress, and everyone's, are
found without reading the finished ones, which outnumber them more every day.

``EventScan`` (``parlor.directory.eventscan``) is the same list read from every event at each
call, for a store without the directory's tables (the in-memory store of unit tests): what
one lists, the other lists.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from google.protobuf.message import Message
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from parlor.admission.privacy import Privacy
from parlor.common.v1 import common_pb2
from parlor.directory import tables
from parlor.directory.listed import (
    GAME_FINISHED,
    SEATS_TAKEN,
    Listed,
    check_limit,
    departures_by_type,
)
from parlor.eventstore.cursors import partition_key
from parlor.gametypes.catalogue import CataloguedGame
from parlor.runtime.queue import GameQueue

__all__ = [
    "Directory",
    "game_directory",
]


class Directory:
    """The games of one type (``category``), listed by player and time."""

    def __init__(
        self,
        engine: AsyncEngine,
        category: str,
        batch: int = 2000,
        fresh_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        departures: Sequence[type[Message]] = (),
    ) -> None:
        self.engine = engine
        self.category = category
        self.departures = departures_by_type(departures)
        self.batch = batch
        self.fresh_seconds = fresh_seconds
        self.clock = clock
        self._ready = False
        self._caught_up_at: float | None = None  # monotonic time of the last catch-up
        self._running = asyncio.Lock()  # one catch-up of this process at a time
        self._next: asyncio.Task[int] | None = None  # the one not yet started, which callers join
        self._players = GameQueue()  # this process's claims: one at a time per player
        self._slots: asyncio.Semaphore | None = None  # ``_claim_slots``

    async def ensure(self) -> None:
        """Create the tables if missing (idempotent; serialised across processes)."""
        if self._ready:
            return
        async with self.engine.begin() as conn:
            for statement in tables.SCHEMA:
                await conn.execute(text(statement))
        self._ready = True

    async def caught_up(self) -> None:
        """Return after a catch-up that started after this call: what was committed before the
        call is in the directory.

        Concurrent callers in this process share one catch-up: the one waiting to start,
        which every caller arriving before it starts joins. Each catch-up is a transaction
        under the type's one lock, so a burst of listings (the lobby lists three times per
        game type) used to queue one transaction each on the lock, each holding a pooled
        connection the moves need; now a process runs one catch-up at a time with at most
        one more waiting."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_task(self._catch_up_next())
            self._next.add_done_callback(_retrieved)
        await asyncio.shield(self._next)

    async def _catch_up_next(self) -> int:
        async with self._running:
            self._next = None  # started: a caller from now on waits for the one after it
            return await self.catch_up()

    async def catch_up(self) -> int:
        """Fold new ``SeatsTaken``/``GameFinished`` events into the directory; how many."""
        await self.ensure()
        total = 0
        while True:
            full = False
            async with self.engine.begin() as conn:
                await conn.execute(
                    tables.LOCK,
                    {
                        "kind": tables.DIRECTORY_LOCK_CLASS,
                        "key": tables.hash_category(self.category),
                    },
                )
                # A checkpoint per partition of the store's order (``partition_key``: the
                # game type's own for partition 0, today's row): across partitions positions
                # interleave, and one checkpoint over them could skip a late commit.
                heads = [
                    (int(p), int(head)) for p, head in (await conn.execute(tables.HEADS)).all()
                ]
                keys = [partition_key(self.category, p) for p, _ in heads]
                rows_saved = (await conn.execute(tables.CHECKPOINTS, {"keys": keys})).all()
                saved = {str(key): int(position) for key, position in rows_saved}
                for (partition, head), key in zip(heads, keys, strict=True):
                    after = saved.get(key, 0)
                    if head <= after:
                        continue
                    # Everything up to the partition's head is committed (its appends are
                    # serialised), so a quiet game type moves its checkpoint past other
                    # types' events too.
                    rows = (
                        await conn.execute(
                            tables.NEW,
                            {
                                "partition": partition,
                                "after": after,
                                "head": head,
                                "types": [SEATS_TAKEN, GAME_FINISHED, *self.departures],
                                "prefix": self.category.replace("_", r"\_") + "-%",
                                "limit": self.batch,
                            },
                        )
                    ).all()
                    for position, stream_id, version, type_, data, recorded_at, extra in rows:
                        await self._fold(
                            conn, stream_id, version, type_, bytes(data), recorded_at, extra
                        )
                        after = position
                    if len(rows) < self.batch:
                        after = max(after, head)
                    else:
                        full = True
                    await conn.execute(tables.CHECKPOINT, {"category": key, "position": after})
                    total += len(rows)
            if not full:
                return total

    async def _fold(
        self,
        conn: Any,
        stream_id: str,
        version: int,
        type_: str,
        data: bytes,
        at: dt.datetime,
        extra: Any = None,
    ) -> None:
        game_id = stream_id[len(self.category) + 1 :]
        if type_ == SEATS_TAKEN:
            seats = common_pb2.SeatsTaken.FromString(data).seats
            privacy = Privacy.of(extra if isinstance(extra, dict) else None)
            await conn.execute(
                tables.SEATED,
                {
                    "stream_id": stream_id,
                    "category": self.category,
                    "game_id": game_id,
                    "players": [s.player_id for s in seats],
                    "names": [s.display_name for s in seats],
                    "at": at,
                    "version": version,
                    "private": privacy.private,
                    "findable": list(privacy.findable),
                },
            )
        elif type_ == GAME_FINISHED:
            finished = common_pb2.GameFinished.FromString(data)
            await conn.execute(
                tables.FINISHED,
                {"stream_id": stream_id, "at": at, "reason": finished.reason, "version": version},
            )
        else:  # a departure: PostgreSQL's arrays count from 1
            seat = self.departures[type_].FromString(data).seat  # type: ignore[attr-defined]
            await conn.execute(tables.DEPARTED, {"stream_id": stream_id, "seat": int(seat) + 1})

    async def list(
        self,
        *,
        player_id: str | None = None,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        finished: bool | None = None,
        limit: int = 50,
        before: tuple[dt.datetime, str] | None = None,
        viewer: str | None = None,
    ) -> list[Listed]:
        """Newest first; ``finished`` True: finished games only, False: in progress only (on
        the partial indexes of unfinished rows; with ``player_id``, those the player still
        plays, as ``open_games`` counts them), None: all; ``before`` (created_at, game_id)
        continues a previous page."""
        check_limit(limit)
        await self.caught_up()
        async with self.engine.connect() as conn:
            # An account is also every guest id it claimed (docs/accounts.md): its games
            # are listed under it, read through the claims, as scoring counts them.
            ids = await tables.ids_of(conn, player_id) if player_id else []
            viewers = await tables.ids_of(conn, viewer) if viewer else []
        where = ["category = :category"]
        params: dict[str, Any] = {"category": self.category, "limit": limit}
        if player_id and len(ids) > 1:
            where.append("players && CAST(:players AS text[])")
            params["players"] = ids
            if finished is False:  # the games any of its ids holds, as ``open_games`` counts
                where.append(tables.HOLDS_ANY)
        elif player_id:
            where.append("players @> ARRAY[CAST(:player AS text)]")
            params["player"] = player_id
        if since is not None:
            where.append("created_at >= :since")
            params["since"] = since
        if until is not None:
            where.append("created_at < :until")
            params["until"] = until
        if finished is not None:
            where.append("finished_at IS NOT NULL" if finished else "finished_at IS NULL")
        if player_id and len(ids) == 1 and finished is False:  # as ``open_games`` counts
            where.append(tables.HOLDS)
        if viewer is not None:  # as ``Listed.shown_to``
            params["viewer"] = viewer
            if len(viewers) > 1:
                params["viewers"] = viewers
                where.append("(NOT private OR players && CAST(:viewers AS text[]))")
            else:
                where.append("(NOT private OR players @> ARRAY[CAST(:viewer AS text)])")
            if player_id and player_id != viewer and len(ids) > 1:
                where.append("findable && CAST(:players AS text[])")
            elif player_id and player_id != viewer:
                where.append("findable @> ARRAY[CAST(:player AS text)]")
        if before is not None:
            where.append("(created_at, stream_id) < (:before_at, :before_stream)")
            params["before_at"] = before[0]
            params["before_stream"] = f"{self.category}-{before[1]}"
        query = text(
            "SELECT game_id, players, names, created_at, finished_at, finish_reason,"
            " last_version, departed, private, findable FROM game_directory WHERE "
            + " AND ".join(where)
            + " ORDER BY created_at DESC, stream_id DESC LIMIT :limit"
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query, params)).all()
        return [
            Listed(
                row[0],
                tuple(row[1]),
                tuple(row[2]),
                row[3],
                row[4],
                row[5] or "",
                row[6],
                tuple(row[7]),
                row[8],
                tuple(row[9]),
            )
            for row in rows
        ]

    async def open_games(self, player_id: str, at_most: int) -> int:
        """How many of this type's games the player holds (unfinished; not left while another
        person plays on), as of a catch-up at most ``fresh_seconds`` old (counting stops at
        ``at_most``).

        Asked at every game creation and ticket, it catches up only when the last catch-up
        is older than that: a catch-up is a transaction under the type's one lock, which
        every creation of a burst would otherwise queue for. The games made since are
        counted by their claims (``claiming``), which ``CreateGame`` takes."""
        await self._fresh()
        async with self.engine.connect() as conn:
            count = (
                await conn.execute(
                    tables.OPEN, {"category": self.category, "player": player_id, "limit": at_most}
                )
            ).scalar()
        return int(count or 0)

    async def _fresh(self) -> None:
        """Catch up if the last catch-up is older than ``fresh_seconds``."""
        now = self.clock()
        if self._caught_up_at is None or now - self._caught_up_at >= self.fresh_seconds:
            await self.caught_up()
            self._caught_up_at = now

    @contextlib.asynccontextmanager
    async def claiming(self, player_id: str, game_id: str, at_most: int) -> AsyncIterator[int]:
        """As ``OpenGames.claiming``: a transaction holding the player's advisory lock of this
        type, counting the directory's games (``open_games``) and the claims it has not folded
        yet, adding this game's claim, committed after the body (the game's create) returns.

        One caller per player waits on the lock per process (the others queue in-process), so
        a burst of one player's creations holds one pooled connection, not one each; and the
        claims of a process together hold at most half of its transaction pool
        (``_claim_slots``), as a create may wait on a dependency (the dictionary) meanwhile:
        the directory's catch-ups and the other tables' transactions keep the rest."""
        await self.ensure()
        async with self._players.turn(player_id), self._claim_slots():
            await self._fresh()
            params = {
                "category": self.category,
                "player": player_id,
                "stream_id": f"{self.category}-{game_id}",
                "limit": at_most,
            }
            key = tables.hash_category(f"{self.category}\x1f{player_id}")
            async with self.engine.begin() as conn:
                await conn.execute(tables.LOCK, {"kind": tables.CLAIM_LOCK_CLASS, "key": key})
                await conn.execute(tables.SETTLED, params)
                held = (await conn.execute(tables.HELD, params)).scalar() or 0
                await conn.execute(tables.CLAIM, params)
                yield min(int(held), at_most)

    def _claim_slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            size = getattr(self.engine.pool, "size", None)
            pooled = size() if callable(size) else 0
            self._slots = asyncio.Semaphore(max(1, int(pooled) // 2) if pooled else 4)
        return self._slots

    async def all_ids(self) -> Sequence[str]:
        """Every game id of this type, oldest first (for verification runs)."""
        await self.caught_up()
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    text(
                        "SELECT game_id FROM game_directory WHERE category = :category"
                        " ORDER BY created_at, stream_id"
                    ),
                    {"category": self.category},
                )
            ).all()
        return [row[0] for row in rows]


def game_directory(engine: AsyncEngine, game: CataloguedGame) -> Directory:
    """The directory of ``game``'s games, folding its departures as every other of the type
    must (they share the type's checkpoint: one that skipped them would move it past them)."""
    return Directory(engine, game.category, departures=game.departures)


def _retrieved(task: asyncio.Task[int]) -> None:
    """A shared catch-up's failure reaches its callers; this keeps asyncio from also logging it
    as never retrieved when all of them were cancelled first."""
    if not task.cancelled():
        task.exception()
