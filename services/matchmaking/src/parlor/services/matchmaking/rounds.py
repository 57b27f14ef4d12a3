"""A matching round, durable and safe across replicas: one transaction per game type.

1. ``pg_try_advisory_xact_lock`` on the game type: one replica runs its round at a
   time; the others skip it this tick (no waiting, no pile-up).
2. The lobbies with waiting tickets are locked (``FOR UPDATE SKIP LOCKED``: one a
   JoinLobby holds is left, with its tickets, to the next round), then the waiting tickets
   with ``SELECT ... FOR UPDATE SKIP LOCKED`` (a ticket being cancelled right now is
   skipped, never matched). JoinLobby writes its ticket under the lobby's lock, so a
   lobby this round closes has no ticket the round did not see: the joiner waits and
   gets LOBBY_CLOSED.
3. ``parlor.matching`` forms the round at the database's clock.
4. Tickets become matched/expired/withdrawn/lobby_closed (those of a lobby whose host
   has left it, or whose host's ticket expires in this round: a lobby waits for its
   host), each match and its human seats are inserted
   (``mm_match_players.ticket_id`` is unique), and ``MatchFormed`` is
   appended to ``matchmaking-<match_id>`` with ``NO_STREAM``, all in that transaction
   (match ids are secure random ids, checked to name no stream yet: ``free_ids``):
   a round commits completely or not at all, and a crash loses no ticket. A player
   has at most one waiting ticket (a partial unique index), so no two rounds can seat
   one player: their tickets are in one game type's round at a time.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from google.protobuf.timestamp_pb2 import Timestamp
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from parlor.common.v1 import common_pb2
from parlor.core.errors import Conflict
from parlor.eventstore import NO_STREAM, Metadata, NewEvent, PostgresEventStore
from parlor.gametypes.seats import shown_as_bot
from parlor.gametypes.timecontrol import TimeControl
from parlor.matching import BOT_PREFIX, Match, Policy, Pool, Round, Ticket
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import MATCH_FORMED
from parlor.services.matchmaking.games import GAME_TYPES, bot_player, time_control_from_json
from parlor.services.matchmaking.tickets import LOBBY_CLOSED
from parlor.telemetry.metrics import MATCHMAKING_WAIT_SECONDS

log = logging.getLogger("parlor.services.matchmaking.rounds")

CATEGORY = "matchmaking"
ROUND_LOCK_CLASS = 0x6D6D  # "mm": two-key advisory locks, (class, hashtext(game type))
MAX_ID_DRAWS = 8
MAX_LINE_FOR_PAIRS = 64
"""Past this many public tickets waiting in one line (game type and time control), the
moment their rating windows next let a pair meet is not worked out pair by pair
(``next_change``): the round is simply due again after the pause between rounds."""


@dataclass(frozen=True)
class Formed:
    """A match as persisted: seats shuffled; ``seat_of`` maps ticket id to seat index."""

    match_id: str
    match: Match
    seats: tuple[tuple[str, str], ...]
    seat_of: dict[str, int]
    findable: tuple[str, ...] = ()
    """The players whose tickets chose to be findable by id in the game."""


def new_match_id() -> str:
    """A match's id, which is its game's id: 128 secure random bits, never a ticket's id
    (a ticket's owner knows that one, and could create a game under it first)."""
    return secrets.token_hex(16)


def seat_match(
    match: Match,
    names: dict[str, str],
    rng: secrets.SystemRandom,
    match_id: str,
    findable: frozenset[str] = frozenset(),
) -> Formed:
    """Shuffle the seats (seat 0 starts in every game) with the secure random source."""
    entries: list[tuple[str, str, str | None]] = []
    for i, seat in enumerate(match.seats):
        if i < len(match.tickets):
            ticket = match.tickets[i]
            entries.append((seat, names.get(ticket, seat), ticket))
        else:
            bot = bot_player(seat, match.game_type) if seat.startswith(BOT_PREFIX) else seat
            entries.append((bot, "Bot (" + bot.split(":", 1)[1] + ")", None))
    rng.shuffle(entries)
    seats = tuple((player, name) for player, name, _ in entries)
    seat_of = {ticket: i for i, (_, _, ticket) in enumerate(entries) if ticket is not None}
    found = tuple(p for p, _, t in entries if t is not None and t in findable)
    return Formed(match_id, match, seats, seat_of, found)


def match_formed(formed: Formed, now: datetime) -> events_pb2.MatchFormed:
    formed_at = Timestamp()
    formed_at.FromDatetime(now)
    control = formed.match.time_control
    assert isinstance(control, TimeControl), "tickets are loaded with their time control"
    return events_pb2.MatchFormed(
        match_id=formed.match_id,
        game_type=formed.match.game_type,
        seats=[
            common_pb2.Seat(index=i, player_id=p, display_name=n, bot=shown_as_bot(p))
            for i, (p, n) in enumerate(formed.seats)
        ],
        formed_at=formed_at,
        ticket_ids=list(formed.match.tickets),
        lobby=formed.match.lobby or "",
        time_control=control.to_proto(),
        findable_players=formed.findable,
    )


async def _locked_lobbies(conn: AsyncConnection, game_type: str) -> dict[str, str]:
    """Lock the lobbies with waiting tickets of this game type, skipping those a JoinLobby
    holds right now (their tickets wait for the next round): with the lock held, every
    ticket written in such a lobby is committed, so the next statement sees it, and a
    JoinLobby arriving now waits for this round and sees whether it closed the lobby.
    Each lobby's code, and its host's player id."""
    rows = await conn.execute(
        text(
            "SELECT l.code, l.host_player_id FROM mm_lobbies l WHERE l.code IN"
            " (SELECT t.lobby FROM mm_tickets t"
            " WHERE t.game_type = :g AND t.status = 'waiting' AND t.lobby IS NOT NULL)"
            " FOR UPDATE OF l SKIP LOCKED"
        ),
        {"g": game_type},
    )
    return {code: host for code, host in rows}


async def _locked_tickets(
    conn: AsyncConnection, game_type: str, lobbies: Mapping[str, str]
) -> tuple[list[Ticket], dict[str, str], frozenset[str]]:
    """Lock this game type's waiting tickets: public ones, those of ``lobbies`` (locked by
    this round; each ticket names its lobby's host, so a lobby whose host is not waiting
    in it, or expires now, closes) and any whose lobby row is gone (nothing can join it),
    so they expire. With each ticket's display name, and the findable tickets."""
    rows = await conn.execute(
        text(
            "SELECT ticket_id, player_id, display_name, min_players, max_players, rating,"
            " created_at, lobby, time_control, bots_at_once, bot_level, findable"
            " FROM mm_tickets t WHERE game_type = :g AND status = 'waiting'"
            " AND (lobby IS NULL OR lobby = ANY(:lobbies)"
            " OR NOT EXISTS (SELECT 1 FROM mm_lobbies l WHERE l.code = t.lobby))"
            " FOR UPDATE OF t SKIP LOCKED"
        ),
        {"g": game_type, "lobbies": list(lobbies)},
    )
    game = GAME_TYPES.get(game_type)
    bots = game.bots if game is not None else ()
    tickets: list[Ticket] = []
    names: dict[str, str] = {}
    findable: set[str] = set()
    for row in rows:
        ticket_id, player, name, low, high, rating, created, lobby, control, at_once, level = row[
            :11
        ]
        if row[11]:
            findable.add(ticket_id)
        tickets.append(
            Ticket(
                ticket_id,
                player,
                game_type,
                low,
                high,
                rating,
                created,
                lobby,
                time_control=time_control_from_json(control, game_type),
                bots_at_once=bool(at_once) and lobby is None,
                # A level the game no longer has (bots renamed since): by the table's rating.
                bot_level=bots.index(level) + 1 if level in bots else None,
                lobby_host=lobbies.get(lobby) if lobby is not None else None,
            )
        )
        names[ticket_id] = name
    return tickets, names, frozenset(findable)


async def _close(conn: AsyncConnection, ids: Sequence[str], status: str, now: datetime) -> None:
    if not ids:
        return
    done = await conn.execute(
        text(
            "UPDATE mm_tickets SET status = :s, closed_at = :now"
            " WHERE ticket_id = ANY(:ids) AND status = 'waiting'"
        ),
        {"s": status, "now": now, "ids": list(ids)},
    )
    if done.rowcount != len(ids):
        raise Conflict("tickets changed under a matching round", reason="ROUND_CONFLICT")


async def _persist(
    conn: AsyncConnection, store: PostgresEventStore, formed: Sequence[Formed], now: datetime
) -> None:
    if not formed:
        return
    ticket_ids = [t for f in formed for t in f.match.tickets]
    done = await conn.execute(
        text(
            "UPDATE mm_tickets AS t SET status = 'matched', closed_at = :now,"
            " match_id = v.match_id, seat = v.seat"
            " FROM unnest(CAST(:ids AS text[]), CAST(:mids AS text[]), CAST(:seats AS int[]))"
            " AS v(ticket_id, match_id, seat)"
            " WHERE t.ticket_id = v.ticket_id AND t.status = 'waiting'"
        ),
        {
            "now": now,
            "ids": ticket_ids,
            "mids": [f.match_id for f in formed for _ in f.match.tickets],
            "seats": [f.seat_of[t] for f in formed for t in f.match.tickets],
        },
    )
    if done.rowcount != len(ticket_ids):
        raise Conflict("tickets changed under a matching round", reason="ROUND_CONFLICT")
    await conn.execute(
        text(
            "INSERT INTO mm_matches (match_id, game_type, lobby, seats, formed_at)"
            " SELECT * FROM unnest(CAST(:mids AS text[]), CAST(:games AS text[]),"
            " CAST(:lobbies AS text[]), CAST(:seats AS jsonb[]), CAST(:formed AS timestamptz[]))"
        ),
        {
            "mids": [f.match_id for f in formed],
            "games": [f.match.game_type for f in formed],
            "lobbies": [f.match.lobby for f in formed],
            "seats": [json.dumps([list(s) for s in f.seats]) for f in formed],
            "formed": [now for _ in formed],
        },
    )
    rows = [
        (f.match_id, f.seat_of[t], p, t)
        for f in formed
        for t, p in zip(f.match.tickets, f.match.players, strict=True)
    ]
    await conn.execute(
        text(
            "INSERT INTO mm_match_players (match_id, seat, player_id, ticket_id)"
            " SELECT * FROM unnest(CAST(:mids AS text[]), CAST(:seats AS int[]),"
            " CAST(:players AS text[]), CAST(:tickets AS text[]))"
        ),
        {
            "mids": [r[0] for r in rows],
            "seats": [r[1] for r in rows],
            "players": [r[2] for r in rows],
            "tickets": [r[3] for r in rows],
        },
    )
    lobbies = [(f.match.lobby, f.match_id) for f in formed if f.match.lobby]
    if lobbies:
        await conn.execute(
            text(
                "UPDATE mm_lobbies AS l SET match_id = v.match_id"
                " FROM unnest(CAST(:codes AS text[]), CAST(:mids AS text[])) AS v(code, match_id)"
                " WHERE l.code = v.code"
            ),
            {"codes": [c for c, _ in lobbies], "mids": [m for _, m in lobbies]},
        )
    # Last, so the event store's append lock is held for the shortest time before commit.
    await append_matches(conn, store, formed, now)


async def append_matches(
    conn: AsyncConnection, store: PostgresEventStore, formed: Sequence[Formed], now: datetime
) -> None:
    """Append ``MatchFormed`` to ``matchmaking-<match_id>`` for each match, in ``conn``'s tx.

    Through the store's public ``append(connection=...)``, one call per match: a batch
    append that joins a caller's transaction would save the round trips (the store's
    internals are changing, so matchmaking does not call its SQL function itself).
    """
    for f in formed:
        await store.append(
            f"{CATEGORY}-{f.match_id}",
            [
                NewEvent(
                    MATCH_FORMED,
                    match_formed(f, now).SerializeToString(),
                    metadata=Metadata(actor=CATEGORY, correlation_id=f.match_id),
                )
            ],
            NO_STREAM,
            connection=conn,
        )


async def free_ids(
    conn: AsyncConnection, game_type: str, count: int, new_id: Callable[[], str]
) -> list[str]:
    """``count`` fresh match ids whose game stream and match stream do not exist yet.

    Ids are random, so a taken one means a stream was made under it by other means (a
    restore, an older platform); the match fails over to another id, and its players
    learn the id from their tickets, as always. The game services refuse clients'
    ``CreateGame`` under a match's id (``GAME_ID_RESERVED``) once the round commits.
    """
    ids: list[str] = []
    if not count:
        return ids
    for _ in range(MAX_ID_DRAWS):
        wanted = [new_id() for _ in range(count - len(ids))]
        streams = [f"{c}-{i}" for i in wanted for c in (game_type, CATEGORY)]
        taken = {
            stream_id.split("-", 1)[1]
            for (stream_id,) in await conn.execute(
                text("SELECT DISTINCT stream_id FROM events WHERE stream_id = ANY(:s)"),
                {"s": streams},
            )
        }
        if taken:
            log.warning("match id taken: failing over to a fresh one", extra={"taken": len(taken)})
        ids += [i for i in dict.fromkeys(wanted) if i not in taken and i not in ids]
        if len(ids) == count:
            return ids
    raise Conflict("could not draw free match ids", reason="MATCH_IDS_TAKEN")


def _window_reaches(policy: Policy, ticket: Ticket, gap: float) -> datetime | None:
    """When ``ticket``'s rating window first reaches ``gap`` points (None: never)."""
    if gap <= policy.window_base:
        return ticket.created_at
    if gap > policy.window_cap or policy.window_growth <= 0.0:
        return None
    return ticket.created_at + timedelta(seconds=(gap - policy.window_base) / policy.window_growth)


def next_change(left: Sequence[Ticket], now: datetime, policy: Policy) -> timedelta | None:
    """How long until time alone could change a round over the tickets ``left`` waiting
    after a round at ``now``: ``form_matches`` is a function of the tickets and the time, and
    the time enters it only through each ticket's wait crossing ``accept_minimum_after``,
    ``bot_fill_after`` or ``expires_after``, and through rating windows, which only grow, so
    two public tickets of one line may first sit together once both windows reach their
    rating gap. None: no ticket is waiting, nothing happens by itself. ``timedelta(0)``:
    too many tickets in one line to work out the pairs (``MAX_LINE_FOR_PAIRS``).
    """
    times: list[datetime] = []
    waits = (policy.accept_minimum_after, policy.bot_fill_after, policy.expires_after)
    lines: dict[Hashable, list[Ticket]] = defaultdict(list)
    for ticket in left:
        times += [ticket.created_at + w for w in waits if w is not None]
        if ticket.lobby is None:
            lines[(ticket.game_type, ticket.time_control)].append(ticket)
    for line in lines.values():
        if len(line) > MAX_LINE_FOR_PAIRS:
            return timedelta(0)
        for i, a in enumerate(line):
            for b in line[i + 1 :]:
                if a.player_id == b.player_id:
                    continue
                gap = abs(a.rating - b.rating)
                at_a, at_b = _window_reaches(policy, a, gap), _window_reaches(policy, b, gap)
                if at_a is not None and at_b is not None:
                    times.append(max(at_a, at_b))
    future = [t for t in times if t > now]
    return min(future) - now if future else None


@dataclass(frozen=True)
class Ran:
    """A round as run: its outcome, and how long until time alone could change the next one
    over the tickets it left waiting (``next_change``; None: none left)."""

    round: Round
    formed: list[Formed]
    next_change: timedelta | None


class Rounds:
    """Runs rounds for one game type at a time; any number of replicas may run them."""

    def __init__(
        self,
        store: PostgresEventStore,
        policy: Policy,
        new_id: Callable[[], str] = new_match_id,
    ) -> None:
        self.store = store
        self.engine: AsyncEngine = store.engine
        self.policy = policy
        self.rng = secrets.SystemRandom()
        self.new_id = new_id

    async def waiting(self, game_types: Sequence[str]) -> list[str]:
        """The game types, of ``game_types``, that have waiting tickets, in that order: a round
        of the others would only take its lock and find nothing (a transaction of five
        statements per game type and replica, several times a second, on an idle platform).
        A ticket made just after this look waits for the next round, as one made just after
        a round does."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT DISTINCT game_type FROM mm_tickets"
                    " WHERE status = 'waiting' AND game_type = ANY(:g)"
                ),
                {"g": list(game_types)},
            )
            found = {row[0] for row in rows}
        return [g for g in game_types if g in found]

    async def run(self, game_type: str) -> tuple[Round, list[Formed]] | None:
        """One round; None if another replica holds this game type's round right now."""
        ran = await self.run_timed(game_type)
        return None if ran is None else (ran.round, ran.formed)

    async def run_timed(self, game_type: str) -> Ran | None:
        """One round, and when time alone could next change one (``Ran``); None if another
        replica holds this game type's round right now."""
        async with self.engine.begin() as conn:
            locked = (
                await conn.execute(
                    text("SELECT pg_try_advisory_xact_lock(:cls, hashtext(:g))"),
                    {"cls": ROUND_LOCK_CLASS, "g": game_type},
                )
            ).scalar()
            if not locked:
                return None
            lobbies = await _locked_lobbies(conn, game_type)
            tickets, names, findable = await _locked_tickets(conn, game_type, lobbies)
            # The clock after the rows are locked: every ticket was created before it.
            now = (await conn.execute(text("SELECT clock_timestamp()"))).scalar_one()
            if not tickets:
                return Ran(Round((), (), ()), [], None)
            round_ = Pool.from_tickets(tickets, self.policy).match(now)
            ids = await free_ids(conn, game_type, len(round_.matches), self.new_id)
            formed = [
                seat_match(m, names, self.rng, i, findable)
                for m, i in zip(round_.matches, ids, strict=True)
            ]
            await _close(conn, round_.expired, "expired", now)
            await _close(conn, round_.withdrawn, "withdrawn", now)
            # The friends in a lobby whose host has left it (or whose host's ticket expired
            # just now): the lobby closes with its host, and their tickets end with it.
            await _close(conn, round_.closed, LOBBY_CLOSED, now)
            # Last: the first append takes the store's append lock (every game's appends, in
            # every process, wait on it) and holds it until this transaction commits.
            await _persist(conn, self.store, formed, now)
        created = {t.id: t.created_at for t in tickets}
        waited = MATCHMAKING_WAIT_SECONDS.labels(game_type)
        for f in formed:  # committed: each seated ticket's wait is over
            for ticket_id in f.match.tickets:
                waited.observe((now - created[ticket_id]).total_seconds())
        consumed = set(round_.consumed)
        left = [t for t in tickets if t.id not in consumed]
        return Ran(round_, formed, next_change(left, now, self.policy))
