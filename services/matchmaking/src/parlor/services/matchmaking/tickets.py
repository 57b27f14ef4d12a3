"""Tickets in PostgreSQL: create, read, cancel; one waiting ticket per player."""

from __future__ import annotations

import contextlib
import json
import math
import secrets
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from parlor.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from parlor.gametypes.timecontrol import TimeControl
from parlor.kit.bounds import shown_name
from parlor.rating import INITIAL_RATING
from parlor.services.matchmaking.games import time_control_from_json, time_control_json

WAITING = "waiting"
LOBBY_CLOSED = "lobby_closed"
"""A lobby ticket ended because the lobby's host left it (cancelled, or their ticket expired)."""
FINISHED_UNMATCHED = ("cancelled", "expired", "withdrawn", LOBBY_CLOSED)
"""Ended without a game: kept for the retention after ``closed_at``, then swept."""
TERMINAL = frozenset({"matched", *FINISHED_UNMATCHED})
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 12
"""12 of 32 symbols: 60 bits, so a code cannot be found by guessing (an 8-character code,
40 bits, could be: a thousand open lobbies and a million guesses a second from many
addresses find one in a second); no 0/O or 1/I to misread."""

_COLUMNS = (
    "t.ticket_id, t.player_id, t.display_name, t.game_type, t.min_players, t.max_players, "
    "t.rating, t.lobby, t.status, t.created_at, t.match_id, t.seat, m.seats, "
    "t.time_control, t.bots_at_once, t.bot_level"
)


@dataclass(frozen=True)
class TicketRow:
    ticket_id: str
    player_id: str
    display_name: str
    game_type: str
    min_players: int
    max_players: int
    rating: float
    lobby: str | None
    status: str
    created_at: datetime
    match_id: str | None
    seat: int | None
    seats: tuple[tuple[str, str], ...]  # (player id, display name) per seat, once matched
    time_control: TimeControl
    bots_at_once: bool
    bot_level: str | None  # a name from the game's bots; None: by the table's rating

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


def _row(row: Any) -> TicketRow:
    seats = tuple((str(p), str(n)) for p, n in (row[12] or ()))
    (ticket_id, player, name, game, low, high, rating, lobby, status, created, match, seat) = row[
        :12
    ]
    return TicketRow(
        ticket_id,
        player,
        name,
        game,
        low,
        high,
        rating,
        lobby,
        status,
        created,
        match,
        seat,
        seats,
        time_control_from_json(row[13], game),
        bool(row[14]),
        row[15],
    )


RATINGS_TABLE = "scoring_ratings"
"""Scoring's ratings (read-only, same database), when scoring is installed."""

_INSERT = (
    "INSERT INTO mm_tickets (ticket_id, player_id, display_name, game_type, min_players,"
    " max_players, rating, lobby, time_control, bots_at_once, bot_level, findable)"
    " VALUES (:id, :p, :n, :g, :lo, :hi, {rating}, :lobby, CAST(:tc AS jsonb), :at_once, :level,"
    " :findable)"
    " RETURNING created_at, rating"
)
_GIVEN = text(_INSERT.format(rating="CAST(:r AS double precision)"))
_RATED = text(
    _INSERT.format(
        rating=f"COALESCE((SELECT rating FROM {RATINGS_TABLE}"
        " WHERE game_type = :g AND player_id = :p), CAST(:r AS double precision))"
    )
)


class Tickets:
    """The tickets table; every method is one statement (autocommit) or one short transaction."""

    def __init__(self, engine: AsyncEngine, expires_after: timedelta) -> None:
        self.engine = engine
        # One statement needs no BEGIN and COMMIT of its own: two round trips fewer each.
        self.autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")
        self.expires_after = expires_after
        self._ratings = False  # scoring's table seen (it is never dropped once there)

    async def _has_ratings(self, conn: AsyncConnection) -> bool:
        """Whether scoring's ratings table exists; looked up until it does."""
        if not self._ratings:
            found = (await conn.execute(text(f"SELECT to_regclass('{RATINGS_TABLE}')"))).scalar()
            self._ratings = found is not None
        return self._ratings

    async def rating(self, player_id: str, game_type: str) -> float:
        """Scoring's rating of the player for the game type (``INITIAL_RATING`` if none)."""
        async with self.autocommit.connect() as conn:
            if not await self._has_ratings(conn):
                return INITIAL_RATING
            found = (
                await conn.execute(
                    text(
                        f"SELECT rating FROM {RATINGS_TABLE}"
                        " WHERE game_type = :g AND player_id = :p"
                    ),
                    {"g": game_type, "p": player_id},
                )
            ).scalar()
        return INITIAL_RATING if found is None else float(found)

    async def create(
        self,
        player_id: str,
        display_name: str,
        game_type: str,
        min_players: int,
        max_players: int,
        rating: float | None,
        lobby: str | None = None,
        *,
        time_control: TimeControl,
        bots_at_once: bool = False,
        bot_level: str | None = None,
        findable: bool = False,
        conn: AsyncConnection | None = None,
    ) -> TicketRow:
        """A waiting ticket, in one statement: rated as given, else by scoring's rating of
        the player (a newcomer's if none). ``conn``: within the caller's transaction (a
        lobby's host ticket, written with its lobby), else on its own. ``findable``: the
        player may be found in the match's game by their id (``parlor.admission.privacy``)."""
        if rating is not None and not (math.isfinite(rating) and 0 <= rating <= 10_000):
            raise InvalidArgument("a rating is a number from 0 to 10000", reason="BAD_RATING")
        display_name = shown_name(display_name, player_id)  # a token's name is a claim too
        ticket_id = uuid.uuid4().hex
        own = conn is None
        try:
            async with _connected(self.autocommit, conn) as conn:
                rated = rating is None and await self._has_ratings(conn)
                created, stored = (
                    await conn.execute(
                        _RATED if rated else _GIVEN,
                        {
                            "id": ticket_id,
                            "p": player_id,
                            "n": display_name,
                            "g": game_type,
                            "lo": min_players,
                            "hi": max_players,
                            "r": INITIAL_RATING if rating is None else rating,
                            "lobby": lobby,
                            "tc": json.dumps(time_control_json(time_control)),
                            "at_once": bots_at_once,
                            "level": bot_level,
                            "findable": findable,
                        },
                    )
                ).one()
        except IntegrityError:
            if not own:  # told by ``transaction`` once the caller's has ended
                raise _TicketTaken(player_id) from None
            raise await self._taken(player_id) from None
        return TicketRow(
            ticket_id,
            player_id,
            display_name,
            game_type,
            min_players,
            max_players,
            float(stored),
            lobby,
            WAITING,
            created,
            None,
            None,
            (),
            time_control,
            bots_at_once,
            bot_level,
        )

    async def _taken(self, player_id: str) -> AlreadyExists:
        waiting = await self.waiting_of(player_id)
        return AlreadyExists(
            "you already have a waiting ticket; cancel it first",
            reason="TICKET_EXISTS",
            metadata={"ticket_id": waiting.ticket_id if waiting else ""},
        )

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        """A transaction to write a ticket in (``create`` with ``conn``). A waiting ticket it
        meets is told (TICKET_EXISTS, naming that ticket) once it has ended, on a connection
        of its own: a call holds one pooled connection at a time, so calls that each hold
        one can never wait for each other's."""
        try:
            async with self.engine.begin() as conn:
                yield conn
        except _TicketTaken as taken:
            raise await self._taken(taken.player_id) from None

    async def get(self, ticket_id: str) -> TicketRow:
        async with self.autocommit.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        f"SELECT {_COLUMNS} FROM mm_tickets t"
                        " LEFT JOIN mm_matches m ON m.match_id = t.match_id"
                        " WHERE t.ticket_id = :id"
                    ),
                    {"id": ticket_id},
                )
            ).first()
        if row is None:
            raise NotFound(
                f"no ticket {ticket_id!r}: never made, or finished long enough ago to be deleted",
                reason="TICKET_NOT_FOUND",
            )
        return _row(row)

    async def many(self, ticket_ids: Sequence[str]) -> list[TicketRow]:
        """The tickets of these ids that exist, in one statement (the watchers' poll)."""
        if not ticket_ids:
            return []
        async with self.autocommit.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT {_COLUMNS} FROM mm_tickets t"
                    " LEFT JOIN mm_matches m ON m.match_id = t.match_id"
                    " WHERE t.ticket_id = ANY(:ids)"
                ),
                {"ids": list(ticket_ids)},
            )
            return [_row(row) for row in rows]

    async def waiting_of(self, player_id: str) -> TicketRow | None:
        async with self.autocommit.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        f"SELECT {_COLUMNS} FROM mm_tickets t"
                        " LEFT JOIN mm_matches m ON m.match_id = t.match_id"
                        " WHERE t.player_id = :p AND t.status = 'waiting'"
                    ),
                    {"p": player_id},
                )
            ).first()
        return None if row is None else _row(row)

    async def cancel(self, ticket_id: str, lobby: str | None = None) -> TicketRow:
        """Cancel a waiting ticket; waits for a round holding it, then tells what it became.

        A ticket in a lobby (``lobby``, its code) is cancelled under the lobby's row lock,
        taken first, as JoinLobby and the round take it (lobby, then ticket): a host's
        cancel and a join are one after the other, so a join after the cancel sees no host
        (LOBBY_CLOSED), and a cancel that comes during a join waits for the join's commit.
        The host's cancel closes the lobby in the same transaction: every other waiting
        ticket in it ends ``lobby_closed`` (a lobby waits for its host; its friends would
        otherwise wait for a game that cannot start until their tickets expired)."""
        async with contextlib.AsyncExitStack() as stack:
            host = None
            if lobby is None:
                conn = await stack.enter_async_context(self.autocommit.connect())
            else:
                conn = await stack.enter_async_context(self.engine.begin())
                # No row (swept with its tickets): nothing can join it, the UPDATE decides.
                host = (
                    await conn.execute(
                        text("SELECT host_player_id FROM mm_lobbies WHERE code = :c FOR UPDATE"),
                        {"c": lobby},
                    )
                ).scalar()
            player = (
                await conn.execute(
                    text(
                        "UPDATE mm_tickets SET status = 'cancelled', closed_at = clock_timestamp()"
                        " WHERE ticket_id = :id AND status = 'waiting' RETURNING player_id"
                    ),
                    {"id": ticket_id},
                )
            ).scalar()
            if player is not None and player == host:
                await conn.execute(
                    text(
                        "UPDATE mm_tickets SET status = :closed, closed_at = clock_timestamp()"
                        " WHERE lobby = :c AND status = 'waiting'"
                    ),
                    {"closed": LOBBY_CLOSED, "c": lobby},
                )
        ticket = await self.get(ticket_id)
        if player is None:
            raise FailedPrecondition(
                f"the ticket is {ticket.status}, no longer waiting",
                reason=f"TICKET_{ticket.status.upper()}",
            )
        return ticket

    def expires_at(self, ticket: TicketRow) -> datetime:
        return ticket.created_at + self.expires_after


class _TicketTaken(Exception):
    """The player has a waiting ticket already, found in the caller's transaction."""

    def __init__(self, player_id: str) -> None:
        super().__init__(player_id)
        self.player_id = player_id


@contextlib.asynccontextmanager
async def _connected(
    autocommit: AsyncEngine, conn: AsyncConnection | None
) -> AsyncIterator[AsyncConnection]:
    """``conn`` (the caller's transaction) if given, else a connection of our own."""
    if conn is not None:
        yield conn
        return
    async with autocommit.connect() as own:
        yield own


def invite_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


@dataclass(frozen=True)
class Lobby:
    code: str
    game_type: str
    min_players: int
    max_players: int
    host_player_id: str
    match_id: str | None
    time_control: TimeControl
    host_waiting: bool = True
    """The host has a waiting ticket in the lobby (else it has left it: cancelled, expired)."""
    others: int = 0
    """Waiting tickets in the lobby of players other than the one asking (``lock``'s
    ``player``): the seats already taken, which JoinLobby keeps within ``max_players``."""


class Lobbies:
    """The lobbies table; every method is one statement (autocommit) at a time, or runs in
    the caller's transaction (``open`` with ``conn``: CreateLobby writes a lobby and its
    host's ticket in one transaction, so a refused ticket leaves no lobby; ``lock``:
    JoinLobby checks the lobby is open and has a seat left, and writes its ticket, under the
    lobby's row lock; ``Tickets.cancel`` takes the same lock for a ticket in a lobby)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")

    async def open(
        self,
        game_type: str,
        min_players: int,
        max_players: int,
        host: str,
        time_control: TimeControl,
        conn: AsyncConnection | None = None,
    ) -> Lobby:
        async with _connected(self.autocommit, conn) as conn:
            while True:
                code = invite_code()
                inserted = (
                    await conn.execute(
                        text(
                            "INSERT INTO mm_lobbies (code, game_type, min_players, max_players,"
                            " host_player_id, time_control)"
                            " VALUES (:c, :g, :lo, :hi, :h, CAST(:tc AS jsonb))"
                            " ON CONFLICT DO NOTHING RETURNING code"
                        ),
                        {
                            "c": code,
                            "g": game_type,
                            "lo": min_players,
                            "hi": max_players,
                            "h": host,
                            "tc": json.dumps(time_control_json(time_control)),
                        },
                    )
                ).scalar()
                if inserted is not None:
                    return Lobby(
                        code, game_type, min_players, max_players, host, None, time_control
                    )

    async def game_type(self, code: str) -> str | None:
        """The game type of the lobby of this invite code (it never changes), or None."""
        async with self.autocommit.connect() as conn:
            found = await conn.execute(
                text("SELECT game_type FROM mm_lobbies WHERE code = :c"),
                {"c": code.strip().upper()},
            )
            return found.scalar()

    async def lock(self, code: str, conn: AsyncConnection, player: str = "") -> Lobby:
        """The lobby, its row locked until ``conn``'s transaction ends (JoinLobby writes its
        ticket under this lock): a round closing the lobby, a CancelTicket of a ticket in it
        or the sweep deleting it holds the same lock, so one of them waits and then sees what
        the other did. Every change of a waiting lobby ticket is made under this lock, so the
        host's presence and ``others`` (the waiting tickets not ``player``'s) stay as read
        until the transaction ends."""
        row = (
            await conn.execute(
                text(
                    "SELECT code, game_type, min_players, max_players, host_player_id,"
                    " match_id, time_control FROM mm_lobbies WHERE code = :c FOR UPDATE"
                ),
                {"c": code.strip().upper()},
            )
        ).first()
        if row is None:
            raise NotFound("no lobby with that invite code", reason="LOBBY_NOT_FOUND")
        code, game, low, high, host, match_id, stored = row
        # A statement of its own, after the lock: it sees a round that expired the host's
        # ticket and committed while this one waited (the lock's statement would not).
        waiting, others = (
            await conn.execute(
                text(
                    "SELECT COALESCE(bool_or(player_id = :h), false),"
                    " count(*) FILTER (WHERE player_id <> :p)"
                    " FROM mm_tickets WHERE lobby = :c AND status = 'waiting'"
                ),
                {"c": code, "h": host, "p": player},
            )
        ).one()
        control = time_control_from_json(stored, game)
        return Lobby(code, game, low, high, host, match_id, control, bool(waiting), int(others))
