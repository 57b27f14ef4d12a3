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
on them: ``parlor.gamehost.opengames``), caught up first too, leaving out those the player
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

``EventScan`` is the same list read from every event at each call, for a store without the
directory's tables (the in-memory store of unit tests): what one lists, the other lists.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from google.protobuf.message import Message
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from parlor.accounts import ACCOUNT_CATEGORY, PLAYER_PREFIX, guests_claimed
from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.eventstore import EventStore
from parlor.eventstore.cursors import partition_key
from parlor.gamehost.opengames import Claims
from parlor.gamehost.privacy import Privacy
from parlor.gamehost.queue import GameQueue
from parlor.gamehost.seating import BOT_PREFIX

if TYPE_CHECKING:
    from parlor.gamehost.games import GameType

SEATS_TAKEN = common_pb2.SeatsTaken.DESCRIPTOR.full_name
GAME_FINISHED = common_pb2.GameFinished.DESCRIPTOR.full_name
# Two-key advisory locks (class, object): a key space apart from the event store's
# one-key locks (appends, migrations, relays). Object 0 guards the tables' creation;
# otherwise one catch-up per category at a time.
DIRECTORY_LOCK_CLASS = 0x70617264  # "pard"
# One player's creations of one game type at a time (``claiming``), keyed by both.
CLAIM_LOCK_CLASS = 0x70617263  # "parc"
MAX_PAGE = 500

_SCHEMA = [
    f"SELECT pg_advisory_xact_lock({DIRECTORY_LOCK_CLASS}, 0)",
    """CREATE TABLE IF NOT EXISTS game_directory (
        stream_id text PRIMARY KEY,
        category text NOT NULL,
        game_id text NOT NULL,
        players text[] NOT NULL,
        names text[] NOT NULL,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        finish_reason text,
        last_version bigint NOT NULL)""",
    """CREATE INDEX IF NOT EXISTS game_directory_by_time
        ON game_directory (category, created_at DESC, stream_id)""",
    """CREATE INDEX IF NOT EXISTS game_directory_by_player
        ON game_directory USING gin (players)""",
    # Unfinished games only (a few per player, at most the open-games cap of each type,
    # against every game ever played): a player's games in progress and the open-games
    # count read these, not every game the player finished; everyone's games in progress
    # are paged without stepping over the finished ones.
    """CREATE INDEX IF NOT EXISTS game_directory_unfinished
        ON game_directory (category, created_at DESC, stream_id DESC)
        WHERE finished_at IS NULL""",
    """CREATE INDEX IF NOT EXISTS game_directory_unfinished_by_player
        ON game_directory USING gin (players) WHERE finished_at IS NULL""",
    """CREATE TABLE IF NOT EXISTS game_directory_checkpoints (
        category text PRIMARY KEY, position bigint NOT NULL)""",
    # Games created for a player under the cap (``claiming``) that the directory may not have
    # folded yet: counted until it has (then deleted), each only once its events exist.
    """CREATE TABLE IF NOT EXISTS game_open_claims (
        category text NOT NULL,
        player_id text NOT NULL,
        stream_id text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (category, player_id, stream_id))""",
    # The players who left a game others play on (added after the table: games left before
    # it count as before, until they finish).
    # Looked up first: ALTER TABLE takes the table's exclusive lock even when the column is
    # there, and every process runs this as it starts, beside other replicas' listings.
    """DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_schema = current_schema() AND table_name = 'game_directory'
                       AND column_name = 'departed') THEN
            ALTER TABLE game_directory ADD COLUMN departed text[] NOT NULL DEFAULT '{}';
        END IF;
    END $$""",
    # A game's privacy (``parlor.gamehost.privacy``: added after the table; games before it
    # are public, and no one is findable in them by player id).
    """DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_schema = current_schema() AND table_name = 'game_directory'
                       AND column_name = 'findable') THEN
            ALTER TABLE game_directory ADD COLUMN private boolean NOT NULL DEFAULT false,
                ADD COLUMN findable text[] NOT NULL DEFAULT '{}';
        END IF;
    END $$""",
]

_NEW = text(
    "SELECT position, stream_id, version, type, data, recorded_at, extra FROM events "
    "WHERE partition = :partition AND position > :after AND position <= :head "
    "AND type = ANY(:types) AND stream_id LIKE :prefix ORDER BY position LIMIT :limit"
)
# Each partition of the store's order that has events, with its head: found in the
# (partition, position) index one partition at a time (a loose index scan, P + 1 probes),
# so the directory follows every partition written, whatever P its process was made with.
_HEADS = text(
    "WITH RECURSIVE parts(p) AS (SELECT min(partition) FROM events UNION ALL "
    "SELECT (SELECT min(e.partition) FROM events e WHERE e.partition > parts.p) FROM parts "
    "WHERE parts.p IS NOT NULL) "
    "SELECT p, (SELECT max(e.position) FROM events e WHERE e.partition = parts.p) "
    "FROM parts WHERE p IS NOT NULL ORDER BY p"
)
_CHECKPOINTS = text(
    "SELECT category, position FROM game_directory_checkpoints WHERE category = ANY(:keys)"
)
_LOCK = text("SELECT pg_advisory_xact_lock(CAST(:kind AS integer), CAST(:key AS integer))")
_SEATED = text(
    "INSERT INTO game_directory (stream_id, category, game_id, players, names, created_at,"
    " last_version, private, findable) VALUES (:stream_id, :category, :game_id, :players,"
    " :names, :at, :version, :private, :findable) ON CONFLICT (stream_id) DO NOTHING"
)
_FINISHED = text(
    "UPDATE game_directory SET finished_at = :at, finish_reason = :reason,"
    " last_version = :version WHERE stream_id = :stream_id"
)
_DEPARTED = text(
    "UPDATE game_directory SET departed = array_append(departed, players[:seat])"
    " WHERE stream_id = :stream_id AND players[:seat] IS NOT NULL"
    " AND NOT departed @> ARRAY[players[:seat]]"
)
# A game the player holds: unfinished, and not one they left while another person plays on.
_HOLDS = (
    "players @> ARRAY[CAST(:player AS text)] AND finished_at IS NULL"
    " AND (NOT departed @> ARRAY[CAST(:player AS text)] OR NOT EXISTS ("
    "SELECT 1 FROM unnest(players) AS seated(p) WHERE p NOT LIKE 'bot:%'"
    " AND NOT p = ANY(departed)))"
)
# The same for any of an account's ids (its player id and the guest ids it claimed).
_HOLDS_ANY = (
    "finished_at IS NULL AND EXISTS (SELECT 1 FROM unnest(CAST(:players AS text[])) AS me(id)"
    " WHERE players @> ARRAY[me.id] AND (NOT departed @> ARRAY[me.id] OR NOT EXISTS ("
    "SELECT 1 FROM unnest(players) AS seated(p) WHERE p NOT LIKE 'bot:%'"
    " AND NOT p = ANY(departed))))"
)
_CLAIMED_GUESTS = text(
    "SELECT type, data FROM events WHERE stream_id = :stream AND type = 'GuestClaimed'"
    " ORDER BY version"
)
_OPEN_SQL = (
    "SELECT count(*) FROM (SELECT 1 FROM game_directory WHERE category = :category AND "
    + _HOLDS
    + " LIMIT :limit) AS open"
)
_OPEN = text(_OPEN_SQL)
# Claims the directory has folded (counted there now) or whose create never committed.
_SETTLED = text(
    "DELETE FROM game_open_claims c WHERE c.category = :category AND c.player_id = :player"
    " AND (EXISTS (SELECT 1 FROM game_directory d WHERE d.stream_id = c.stream_id)"
    " OR (c.claimed_at < now() - interval '10 minutes'"
    " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.stream_id = c.stream_id)))"
)
_CLAIMED_SQL = (
    "SELECT count(*) FROM game_open_claims c WHERE c.category = :category"
    " AND c.player_id = :player AND c.stream_id <> :stream_id"
    " AND EXISTS (SELECT 1 FROM events e WHERE e.stream_id = c.stream_id)"
    " AND NOT EXISTS (SELECT 1 FROM game_directory d WHERE d.stream_id = c.stream_id)"
)
# Both counts in one statement, so in one snapshot: counted apart, a catch-up committing
# between them moved a game from the claims to the directory unseen by either, and a burst
# across two servers made one game past the cap.
_HELD = text(f"SELECT ({_OPEN_SQL}) + ({_CLAIMED_SQL})")
_CLAIM = text(
    "INSERT INTO game_open_claims (category, player_id, stream_id)"
    " VALUES (:category, :player, :stream_id) ON CONFLICT DO NOTHING"
)
_CHECKPOINT = text(
    "INSERT INTO game_directory_checkpoints (category, position) VALUES (:category, :position)"
    " ON CONFLICT (category) DO UPDATE SET position = GREATEST("
    "game_directory_checkpoints.position, EXCLUDED.position)"
)


@dataclass(frozen=True, slots=True)
class Listed:
    """One game in a listing."""

    game_id: str
    players: tuple[str, ...]
    names: tuple[str, ...]
    created_at: dt.datetime
    finished_at: dt.datetime | None
    finish_reason: str
    last_version: int
    departed: tuple[str, ...] = ()
    """The players who left it while the others played on (``GameType.departures``)."""
    private: bool = False
    findable: tuple[str, ...] = ()
    """The players who chose to be found in it by their id (``parlor.gamehost.privacy``)."""

    def shown_to(
        self,
        viewer: str | None,
        player_id: str | None,
        viewers: Sequence[str] = (),
        ids: Sequence[str] = (),
    ) -> bool:
        """Whether a listing for ``viewer`` (None: a service, who sees all) filtered by
        ``player_id`` shows the game: a private one only to its seats; another player's
        games only where they chose to be findable. ``viewers``, ``ids``: every id of the
        viewer and of the player (an account's guest ids besides its own; default: it)."""
        if viewer is None:
            return True
        if self.private and not any(v in self.players for v in viewers or (viewer,)):
            return False
        if not player_id or player_id == viewer:
            return True
        return any(i in self.findable for i in ids or (player_id,))

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


class GameList(Claims, Protocol):
    """Where a game type's games are listed and a player's unfinished ones counted: the
    directory's tables (``Directory``) or the events themselves (``EventScan``)."""

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
        """Newest first; ``finished`` True: finished games only, False: in progress only,
        None: all; ``before`` (created_at, game_id) continues a previous page; ``viewer`` the
        player the listing is for (``Listed.shown_to``; None: a service, everything)."""
        ...


async def _ids_of(conn: Any, player_id: str) -> list[str]:
    """``player_id`` and, for an account, the guest ids it claimed (its stream's
    ``GuestClaimed`` events, ``parlor.accounts``): one indexed read of a short stream."""
    if not player_id.startswith(PLAYER_PREFIX):
        return [player_id]
    rows = await conn.execute(_CLAIMED_GUESTS, {"stream": f"{ACCOUNT_CATEGORY}-{player_id}"})
    return [player_id, *guests_claimed((kind, bytes(data)) for kind, data in rows)]


def check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidArgument(f"page size must be 1 to {MAX_PAGE}", reason="INVALID_PAGE_SIZE")


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
        self.departures = _by_type(departures)
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
            for statement in _SCHEMA:
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
                    _LOCK, {"kind": DIRECTORY_LOCK_CLASS, "key": hash_category(self.category)}
                )
                # A checkpoint per partition of the store's order (``partition_key``: the
                # game type's own for partition 0, today's row): across partitions positions
                # interleave, and one checkpoint over them could skip a late commit.
                heads = [(int(p), int(head)) for p, head in (await conn.execute(_HEADS)).all()]
                keys = [partition_key(self.category, p) for p, _ in heads]
                rows_saved = (await conn.execute(_CHECKPOINTS, {"keys": keys})).all()
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
                            _NEW,
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
                    await conn.execute(_CHECKPOINT, {"category": key, "position": after})
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
                _SEATED,
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
                _FINISHED,
                {"stream_id": stream_id, "at": at, "reason": finished.reason, "version": version},
            )
        else:  # a departure: PostgreSQL's arrays count from 1
            seat = self.departures[type_].FromString(data).seat  # type: ignore[attr-defined]
            await conn.execute(_DEPARTED, {"stream_id": stream_id, "seat": int(seat) + 1})

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
            ids = await _ids_of(conn, player_id) if player_id else []
            viewers = await _ids_of(conn, viewer) if viewer else []
        where = ["category = :category"]
        params: dict[str, Any] = {"category": self.category, "limit": limit}
        if player_id and len(ids) > 1:
            where.append("players && CAST(:players AS text[])")
            params["players"] = ids
            if finished is False:  # the games any of its ids holds, as ``open_games`` counts
                where.append(_HOLDS_ANY)
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
            where.append(_HOLDS)
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
                    _OPEN, {"category": self.category, "player": player_id, "limit": at_most}
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
            key = hash_category(f"{self.category}\x1f{player_id}")
            async with self.engine.begin() as conn:
                await conn.execute(_LOCK, {"kind": CLAIM_LOCK_CLASS, "key": key})
                await conn.execute(_SETTLED, params)
                held = (await conn.execute(_HELD, params)).scalar() or 0
                await conn.execute(_CLAIM, params)
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


class EventScan:
    """The directory read from every event of the store at each call (no tables needed):
    for the in-memory store of unit tests, where a scan costs nothing worth saving."""

    def __init__(
        self, store: EventStore, category: str, departures: Sequence[type[Message]] = ()
    ) -> None:
        self.store = store
        self.prefix = category + "-"
        self.departures = _by_type(departures)
        self._players = GameQueue()  # one claim at a time per player

    async def _games(self) -> dict[str, Listed]:
        """Every game of the type by stream id, folded as ``Directory._fold`` folds them."""
        games: dict[str, Listed] = {}
        position = 1
        while batch := await self.store.read_all(position, 1000):
            for event in batch:
                position = event.position + 1
                stream_id = event.stream_id
                if not stream_id.startswith(self.prefix):
                    continue
                if event.type == SEATS_TAKEN and stream_id not in games:
                    seats = common_pb2.SeatsTaken.FromString(event.data).seats
                    privacy = Privacy.of(event.metadata.extra)
                    games[stream_id] = Listed(
                        stream_id[len(self.prefix) :],
                        tuple(s.player_id for s in seats),
                        tuple(s.display_name for s in seats),
                        event.recorded_at,
                        None,
                        "",
                        event.version,
                        private=privacy.private,
                        findable=privacy.findable,
                    )
                elif event.type == GAME_FINISHED and stream_id in games:
                    reason = common_pb2.GameFinished.FromString(event.data).reason
                    games[stream_id] = dataclasses.replace(
                        games[stream_id],
                        finished_at=event.recorded_at,
                        finish_reason=reason,
                        last_version=event.version,
                    )
                elif event.type in self.departures and stream_id in games:
                    game = games[stream_id]
                    seat = self.departures[event.type].FromString(event.data).seat  # type: ignore[attr-defined]
                    player = game.players[seat] if 0 <= seat < len(game.players) else None
                    if player is not None and player not in game.departed:
                        games[stream_id] = dataclasses.replace(
                            game, departed=(*game.departed, player)
                        )
        return games

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
        """As ``Directory.list``."""
        check_limit(limit)
        after = None if before is None else (before[0], self.prefix + before[1])
        ids = await self._ids_of(player_id) if player_id else ()
        viewers = await self._ids_of(viewer) if viewer else ()
        chosen = sorted(
            (
                (game.created_at, stream_id, game)
                for stream_id, game in (await self._games()).items()
                if (not player_id or any(i in game.players for i in ids))
                and not (
                    player_id
                    and finished is False
                    and not any(i in game.players and holds(game, i) for i in ids)
                )
                and (since is None or game.created_at >= since)
                and (until is None or game.created_at < until)
                and (finished is None or game.finished == finished)
                and (after is None or (game.created_at, stream_id) < after)
                and game.shown_to(viewer, player_id, viewers, ids)
            ),
            key=lambda row: (row[0], row[1]),
            reverse=True,
        )
        return [game for _, _, game in chosen[:limit]]

    async def _ids_of(self, player_id: str) -> tuple[str, ...]:
        """As ``_ids_of`` for the tables: the player, and an account's claimed guest ids."""
        if not player_id.startswith(PLAYER_PREFIX):
            return (player_id,)
        events = await self.store.read_stream(f"{ACCOUNT_CATEGORY}-{player_id}")
        return (player_id, *guests_claimed((e.type, e.data) for e in events))

    async def open_games(self, player_id: str, at_most: int) -> int:
        games = (await self._games()).values()
        held = sum(1 for game in games if player_id in game.players and holds(game, player_id))
        return min(held, at_most)

    @contextlib.asynccontextmanager
    async def claiming(self, player_id: str, game_id: str, at_most: int) -> AsyncIterator[int]:
        """As ``OpenGames.claiming``: one process holds the store, and a game it creates is
        in its events at once, so one creation per player at a time is the whole claim."""
        async with self._players.turn(player_id):
            yield await self.open_games(player_id, at_most)


def holds(game: Listed, player_id: str) -> bool:
    """Whether ``game`` counts among ``player_id``'s open games (``_HOLDS``): unfinished, and
    not one they left while another person (no bot, not departed) plays on."""
    if game.finished:
        return False
    if player_id not in game.departed:
        return True
    return not any(not p.startswith(BOT_PREFIX) and p not in game.departed for p in game.players)


def _by_type(departures: Sequence[type[Message]]) -> dict[str, type[Message]]:
    return {message.DESCRIPTOR.full_name: message for message in departures}


def game_directory(engine: AsyncEngine, game: GameType[Any, Any, Any]) -> Directory:
    """The directory of ``game``'s games, folding its departures as every other of the type
    must (they share the type's checkpoint: one that skipped them would move it past them)."""
    return Directory(engine, game.category, departures=game.departures)


def _retrieved(task: asyncio.Task[int]) -> None:
    """A shared catch-up's failure reaches its callers; this keeps asyncio from also logging it
    as never retrieved when all of them were cancelled first."""
    if not task.cancelled():
        task.exception()


def hash_category(category: str) -> int:
    """A stable number 1..2**31-1 per category (Python's ``hash`` is salted per process)."""
    value = 0
    for ch in category:
        value = (value * 131 + ord(ch)) % 2_147_483_647
    return value or 1
