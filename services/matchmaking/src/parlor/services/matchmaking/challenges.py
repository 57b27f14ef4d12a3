"""Challenges in the event store: the challenge decider's streams, each player's inbox, the
open challenges' board and the blocks, written together.

Streams (none of them is relayed to the bus; the matchmaking relay's lane is its own
category):

- ``challenge-<id>``: the challenge's events (``parlor.services.matchmaking.challenge``);
- ``playerinbox-<player id>``: one ``Notice`` per change of a challenge that concerns the
  player, in the order of the changes: what ``ListChallenges`` folds, what the limits
  count (the challenger's inbox is appended with its expected version, so two replicas
  creating at once cannot both pass a limit; a decliner's too, for the declines' limit)
  and what ``WatchPlayer`` streams;
- ``challengeboard-open``: ``Listed``/``Delisted`` for open challenges;
- ``playerblocks-<player id>``: ``Blocked``/``Unblocked``;
- ``rematchof-<game type>-<game id>``: ``RematchOffered``, the rematch offers of a
  finished game, appended with the version seen: two seats offering at once make one
  offer; a new offer only once the last one ended unplayed (declined, expired...).

A change is appended to all of them in **one transaction** (``Batch``; PostgreSQL), and an
accepted challenge's last seat appends ``GameMatched`` with the match's ``MatchFormed``
(``matchmaking-<match id>``, ``NO_STREAM``) in that same transaction: the matchmaking
relay publishes it, and the game type's service makes the game from it exactly as it does
a matching round's (``parlor.gamehost.pipeline.matches``, under ``parlor:match-<match id>``). The
challenge's own stream is appended with its expected version, so a retried or concurrent
accept decides again on the newer state and appends nothing twice: one match, one game.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from google.protobuf.timestamp_pb2 import Timestamp

from parlor.common.v1 import common_pb2
from parlor.core.errors import (
    Conflict,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
)
from parlor.eventstore import (
    ANY_VERSION,
    NO_STREAM,
    EventStore,
    Metadata,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
)
from parlor.gametypes.seats import shown_as_bot
from parlor.gametypes.timecontrol import TimeControl
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import MATCH_FORMED, match_stream
from parlor.services.matchmaking.challenge import (
    CHALLENGES,
    EVENT_TYPES,
    MATCHED,
    RANDOM,
    Accept,
    Cancel,
    Challenge,
    ChallengeCommand,
    ChallengeDeclined,
    ChallengeEvent,
    ChallengeIssued,
    Decline,
    Expire,
    GameMatched,
    Lapse,
)
from parlor.services.matchmaking.challengeconfig import config_bytes
from parlor.services.matchmaking.games import time_control_from_json, time_control_json

CHALLENGE = "challenge"
INBOX = "playerinbox"
BLOCKS = "playerblocks"
BOARD = "challengeboard-open"
REMATCH = "rematchof"
NOTICE = "Notice"
RETRIES = 8
HOUR = 3600.0
DAY = 86_400.0


def new_challenge_id() -> str:
    """128 secure random bits: a challenge's id tells nothing and cannot be guessed."""
    return secrets.token_hex(16)


def challenge_stream(challenge_id: str) -> str:
    if not challenge_id or len(challenge_id) > 64 or not challenge_id.isalnum():
        raise NotFound("no such challenge", reason="CHALLENGE_NOT_FOUND")
    return f"{CHALLENGE}-{challenge_id}"


def inbox_stream(player_id: str) -> str:
    return f"{INBOX}-{player_id}"


def blocks_stream(player_id: str) -> str:
    return f"{BLOCKS}-{player_id}"


# -- the codec: a dataclass event as its type name and JSON, tuples kept as tuples ------------


def encode(event: object) -> tuple[str, bytes]:
    fields = dataclasses.asdict(event)  # type: ignore[call-overload]
    return type(event).__name__, json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def decode(recorded: RecordedEvent) -> ChallengeEvent:
    cls = EVENT_TYPES.get(recorded.type)
    if cls is None:
        raise InvalidArgument(f"unknown challenge event type {recorded.type!r}")
    fields = {k: _tuples(v) for k, v in json.loads(recorded.data).items()}
    return cls(**fields)


# -- writing several streams in one transaction ---------------------------------------------


@dataclass(frozen=True)
class Append:
    stream_id: str
    events: tuple[NewEvent, ...]
    expected_version: int


class Batch(Protocol):
    async def write(self, appends: Sequence[Append]) -> None:
        """Append each in order, all or none (``Conflict`` if an expected version is wrong)."""
        ...


class PostgresBatch:
    """One transaction on the store's engine; the store's append joins it."""

    def __init__(self, store: PostgresEventStore) -> None:
        self.store = store

    async def write(self, appends: Sequence[Append]) -> None:
        async with self.store.engine.begin() as conn:
            for a in appends:
                await self.store.append(a.stream_id, a.events, a.expected_version, connection=conn)


class InMemoryBatch:
    """The in-memory store: one loop, and the only append that may conflict goes first, so a
    conflict leaves nothing written."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def write(self, appends: Sequence[Append]) -> None:
        for a in appends:
            await self.store.append(a.stream_id, a.events, a.expected_version)


def batch_for(store: EventStore) -> Batch:
    return PostgresBatch(store) if isinstance(store, PostgresEventStore) else InMemoryBatch(store)


# -- inbox notices ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Notice:
    """What a player's inbox records of one change of a challenge that concerns them."""

    challenge_id: str
    event: str
    """The change: the challenge event's type name (``ChallengeIssued``...)."""
    version: int
    """The challenge stream's version after it."""
    role: str
    """``challenger``, ``invitee`` or ``seat`` (took an open seat)."""
    status: str
    expires_at: float
    at: float
    challenger: str
    by: str = ""
    """Who made the change, where it is one player's own answer: the decliner of a
    ``ChallengeDeclined`` (what the declines' limit counts); empty otherwise."""


def notice_of(recorded: RecordedEvent) -> Notice:
    return Notice(**json.loads(recorded.data))


@dataclass
class Inbox:
    """A player's inbox folded: their challenges' latest notices, and its version."""

    version: int = NO_STREAM
    latest: dict[str, Notice] = field(default_factory=dict)
    issued_at: list[float] = field(default_factory=list)
    """When each challenge of theirs was issued (the rate's window counts them)."""
    declined_at: list[float] = field(default_factory=list)
    """When they declined a challenge (the declines' limit counts them)."""
    turns: dict[tuple[str, str], RecordedEvent] = field(default_factory=dict)
    """Each game's latest notice (``turnfeed``: a turn, or its abort), by (game type, game id)."""

    def pending(self, role: str, now: float) -> list[Notice]:
        return [
            n
            for n in self.latest.values()
            if n.role == role and n.status == "pending" and now < n.expires_at
        ]


class Challenges:
    """Challenges over any event store (in memory for tests, PostgreSQL in service)."""

    def __init__(
        self,
        store: EventStore,
        max_outstanding: int = 20,
        per_hour: int = 60,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = new_challenge_id,
        declines_per_day: int = 0,
    ) -> None:
        self.store = store
        self.batch = batch_for(store)
        self.max_outstanding = max_outstanding
        self.per_hour = per_hour
        self.declines_per_day = declines_per_day
        """Challenges one player may decline in 24 hours (0: no limit): ``TOO_MANY_DECLINES``."""
        self.clock = clock
        self.new_id = new_id
        self.rng = secrets.SystemRandom()
        self.changed: Callable[[Sequence[str]], None] = lambda players: None
        """Told the players whose inboxes were just appended to (WatchPlayer's wake-up)."""

    # -- reading -----------------------------------------------------------------------------

    async def load(self, challenge_id: str) -> tuple[Challenge, int]:
        events = await self.store.read_stream(challenge_stream(challenge_id))
        state = CHALLENGES.initial_state()
        for recorded in events:
            state = CHALLENGES.evolve(state, decode(recorded))
        return state, (events[-1].version if events else NO_STREAM)

    async def get(self, challenge_id: str) -> Challenge:
        state, _ = await self.load(challenge_id)
        if not state.exists:
            raise NotFound("no such challenge", reason="CHALLENGE_NOT_FOUND")
        return state

    async def inbox(self, player_id: str) -> Inbox:
        folded = Inbox()
        for recorded in await self.store.read_stream(inbox_stream(player_id)):
            folded.version = recorded.version
            if recorded.type != NOTICE:  # a game's turn or abort (``turnfeed``)
                game = json.loads(recorded.data)
                folded.turns[(str(game["game_type"]), str(game["game_id"]))] = recorded
                continue
            notice = notice_of(recorded)
            folded.latest[notice.challenge_id] = notice
            if notice.role == "challenger" and notice.event == "ChallengeIssued":
                folded.issued_at.append(notice.at)
            if notice.event == "ChallengeDeclined" and notice.by == player_id:
                folded.declined_at.append(notice.at)
        return folded

    async def notices(self, player_id: str, after: int) -> list[RecordedEvent]:
        """The player's inbox after position ``after``, in order: challenges' ``Notice`` and
        games' ``TurnNotice`` (``turnfeed``)."""
        return await self.store.read_stream(inbox_stream(player_id), after + 1)

    async def as_of(self, challenge_id: str, version: int) -> Challenge:
        """The challenge as its stream's ``version`` left it."""
        state = CHALLENGES.initial_state()
        for recorded in await self.store.read_stream(challenge_stream(challenge_id), 1, version):
            state = CHALLENGES.evolve(state, decode(recorded))
        return state

    async def blocked_by(self, player_id: str) -> frozenset[str]:
        """The players ``player_id`` blocks."""
        blocked: set[str] = set()
        for recorded in await self.store.read_stream(blocks_stream(player_id)):
            other = json.loads(recorded.data)["player_id"]
            (blocked.add if recorded.type == "Blocked" else blocked.discard)(other)
        return frozenset(blocked)

    async def open_board(self) -> list[str]:
        """The open challenges listed now, newest first."""
        listed: dict[str, None] = {}
        for recorded in await self.store.read_stream(BOARD):
            challenge_id = json.loads(recorded.data)["challenge_id"]
            if recorded.type == "Listed":
                listed[challenge_id] = None
            else:
                listed.pop(challenge_id, None)
        return list(reversed(listed))

    # -- writing -----------------------------------------------------------------------------

    async def issue(
        self,
        issued: Callable[[str, float], ChallengeIssued],
        claim: tuple[str, int] | None = None,
        declines: Callable[[Challenge], Awaitable[Sequence[tuple[str, str]]]] | None = None,
    ) -> Challenge:
        """A new challenge from ``issued(challenge_id, now)``, within the challenger's limits;
        ``claim``: the stream a rematch claims its game with and the version it was seen at
        (``Conflict REMATCH_OFFERED`` once another offer has been made since); ``declines``:
        the (invitee, reason) declines recorded with it, in one append (a bot's, ``bots.py``),
        so no one sees it pending first."""
        challenge_id = self.new_id()
        for _ in range(RETRIES):
            if claim and await self.store.stream_version(claim[0]) != claim[1]:
                raise Conflict("this game's rematch is offered already", reason="REMATCH_OFFERED")
            now = self.clock()
            event = issued(challenge_id, now)
            mine = await self.inbox(event.challenger)
            self._check_limits(mine, now)
            state = CHALLENGES.evolve(CHALLENGES.initial_state(), event)
            events: list[ChallengeEvent] = [event]
            for player, reason in await declines(state) if declines else ():
                for declined in CHALLENGES.decide(state, Decline(player, reason, now)):
                    state = CHALLENGES.evolve(state, declined)
                    events.append(declined)
            try:
                await self._record(
                    state, NO_STREAM, events, {event.challenger: mine.version}, claim
                )
            except Conflict:
                continue  # the challenger's inbox moved (count again), or the claim was taken
            return state
        raise Conflict("your challenges kept changing under this call; retry", reason="CONFLICT")

    async def rematch(
        self, category: str, game_id: str, issued: Callable[[str, float], ChallengeIssued]
    ) -> tuple[Challenge, bool]:
        """The rematch offer of a finished game: a new one (True), or the one a seat offered
        first (False)."""
        claim = f"{REMATCH}-{category}-{game_id}"
        for _ in range(RETRIES):
            version = await self.store.stream_version(claim)
            if version != NO_STREAM:
                (last,) = await self.store.read_stream(claim, version, version)
                offered = await self.get(json.loads(last.data)["challenge_id"])
                if offered.status == MATCHED or offered.pending_at(self.clock()):
                    return offered, False  # the game's offer stands (or was played)
            try:
                return await self.issue(issued, (claim, version)), True
            except Conflict as exc:
                if exc.reason != "REMATCH_OFFERED":
                    raise
        raise Conflict("the rematch kept changing under this call; retry", reason="CONFLICT")

    def _check_limits(self, mine: Inbox, now: float) -> None:
        outstanding = len(mine.pending("challenger", now))
        if self.max_outstanding and outstanding >= self.max_outstanding:
            raise ResourceExhausted(
                f"you have {outstanding} pending challenges, the most one player may;"
                " cancel one or wait for answers",
                reason="TOO_MANY_CHALLENGES",
                metadata={"max_outstanding": str(self.max_outstanding)},
            )
        recent = sum(1 for at in mine.issued_at if at > now - HOUR)
        if self.per_hour and recent >= self.per_hour:
            raise ResourceExhausted(
                f"at most {self.per_hour} new challenges an hour; try again later",
                reason="CHALLENGE_RATE",
                metadata={"per_hour": str(self.per_hour)},
            )

    def _check_declines(self, mine: Inbox, now: float) -> None:
        recent = sum(1 for at in mine.declined_at if at > now - DAY)
        if self.declines_per_day and recent >= self.declines_per_day:
            raise ResourceExhausted(
                f"you have declined {recent} challenges in the last 24 hours, the most one"
                f" player may ({self.declines_per_day}): let this one expire, or accept it",
                reason="TOO_MANY_DECLINES",
                metadata={"per_day": str(self.declines_per_day)},
            )

    async def execute(
        self,
        challenge_id: str,
        command: Callable[[Challenge, float], ChallengeCommand],
        limited: str | None = None,
    ) -> Challenge:
        """Decide ``command(state, now)`` on the latest state and record it; a concurrent change is
        decided again on the newer state (so a retried accept changes nothing). ``limited``:
        the player whose declines' limit the change must pass (a decline), counted in their
        inbox, which the change is appended to at the version counted."""
        for _ in range(RETRIES):
            state, version = await self.load(challenge_id)
            if not state.exists:
                raise NotFound("no such challenge", reason="CHALLENGE_NOT_FOUND")
            now = self.clock()
            expired = CHALLENGES.decide(state, Expire(now))
            events = [*expired] or [*CHALLENGES.decide(state, command(state, now))]
            if not events:
                return state
            inboxes: dict[str, int] = {}
            if limited is not None and not expired:
                mine = await self.inbox(limited)
                self._check_declines(mine, now)
                inboxes[limited] = mine.version
            after = state
            for event in events:
                after = CHALLENGES.evolve(after, event)
            try:
                await self._record(after, version, events, inboxes)
            except Conflict:
                continue
            if expired:  # the command's answer on the challenge as it now stands
                CHALLENGES.decide(after, command(after, now))
            return after
        raise Conflict("the challenge kept changing under this call; retry", reason="CONFLICT")

    async def accept(self, challenge_id: str, player_id: str, name: str) -> Challenge:
        """Take ``player_id``'s seat; the last seat's acceptance makes the match, whose id
        (the game's: 128 secure random bits) and, for a random seat choice, whose seat order
        the service draws here and the decider records."""
        match_id = secrets.token_hex(16)

        def command(state: Challenge, now: float) -> Accept:
            issued = state.issued
            assert issued is not None
            seats = 1 + len(issued.invitees) + issued.open_seats + len(issued.bots)
            draw = random_order(self.rng, seats) if issued.seat_choice == RANDOM else ()
            return Accept(player_id, name, now, match_id, draw)

        return await self.execute(challenge_id, command)

    async def decline(self, challenge_id: str, player_id: str, reason: str) -> Challenge:
        """``player_id`` declines, within their limit (``TOO_MANY_DECLINES``)."""
        return await self.execute(
            challenge_id, lambda _, now: Decline(player_id, reason, now), limited=player_id
        )

    async def cancel(self, challenge_id: str, player_id: str) -> Challenge:
        return await self.execute(challenge_id, lambda _, now: Cancel(player_id, now))

    async def expire(self, challenge_id: str) -> Challenge:
        return await self.execute(challenge_id, lambda _, now: Expire(now))

    async def lapse(self, challenge_id: str, player_id: str) -> Challenge:
        return await self.execute(challenge_id, lambda _, now: Lapse(player_id, now))

    async def block(self, player_id: str, other: str, blocked: bool) -> None:
        if blocked == (other in await self.blocked_by(player_id)):
            return
        kind = "Blocked" if blocked else "Unblocked"
        data = json.dumps({"player_id": other}).encode()
        await self.store.append(
            blocks_stream(player_id),
            [NewEvent(kind, data, metadata=Metadata(actor=player_id))],
            ANY_VERSION,
        )

    async def _record(
        self,
        state: Challenge,
        version: int,
        events: Sequence[ChallengeEvent],
        inbox_versions: dict[str, int],
        claim: tuple[str, int] | None = None,
    ) -> None:
        """The challenge's events, each concerned player's notices, the board and, for a
        matched challenge, its ``MatchFormed``: one transaction."""
        issued = state.issued
        assert issued is not None
        meta = Metadata(actor=CHALLENGE, correlation_id=issued.challenge_id)
        appends = [
            Append(
                challenge_stream(issued.challenge_id),
                tuple(NewEvent(*encode(e), metadata=meta) for e in events),
                version,
            )
        ]
        people = state.people()
        blocked = {p: await self.blocked_by(p) for p in people if p != issued.challenger}
        reached = [p for p in people if issued.challenger not in blocked.get(p, frozenset())]
        for player in reached:
            role = (
                "challenger"
                if player == issued.challenger
                else "invitee"
                if player in issued.invitees
                else "seat"
            )
            notices = tuple(
                NewEvent(
                    NOTICE,
                    json.dumps(
                        dataclasses.asdict(
                            Notice(
                                issued.challenge_id,
                                type(e).__name__,
                                version + 1 + i,
                                role,
                                state.status,
                                issued.expires_at,
                                _at(e),
                                issued.challenger,
                                e.player_id if isinstance(e, ChallengeDeclined) else "",
                            )
                        ),
                        sort_keys=True,
                    ).encode(),
                    metadata=meta,
                )
                for i, e in enumerate(events)
            )
            appends.append(
                Append(inbox_stream(player), notices, inbox_versions.get(player, ANY_VERSION))
            )
        if state.is_open:
            listed = isinstance(events[0], ChallengeIssued)
            if listed or state.status != "pending" or _filled(state):
                data = json.dumps({"challenge_id": issued.challenge_id}).encode()
                kind = "Listed" if listed and state.status == "pending" else "Delisted"
                appends.append(Append(BOARD, (NewEvent(kind, data, metadata=meta),), ANY_VERSION))
        if claim:
            data = json.dumps({"challenge_id": issued.challenge_id}).encode()
            offered = NewEvent("RematchOffered", data, metadata=meta)
            appends.insert(1, Append(claim[0], (offered,), claim[1]))
        for event in events:
            if isinstance(event, GameMatched):
                appends.append(match_formed(issued, event))
        await self.batch.write(appends)
        self.changed(reached)


def _filled(state: Challenge) -> bool:
    issued = state.issued
    assert issued is not None
    taken_open = sum(1 for p, _ in state.accepted if p not in issued.invitees)
    return taken_open >= issued.open_seats


def _at(event: ChallengeEvent) -> float:
    if isinstance(event, ChallengeIssued):
        return event.created_at
    return float(event.at)


def match_formed(issued: ChallengeIssued, matched: GameMatched) -> Append:
    """The match a challenge's last seat makes: ``MatchFormed`` in ``matchmaking-<id>``,
    first and only event of its stream, which the game type's service makes its game from."""
    formed_at = Timestamp()
    formed_at.FromDatetime(datetime.fromtimestamp(matched.at, UTC))
    control = time_control_from_json(issued.time_control, issued.game_type)
    formed = events_pb2.MatchFormed(
        match_id=matched.match_id,
        game_type=issued.game_type,
        seats=[
            common_pb2.Seat(index=i, player_id=p, display_name=n, bot=shown_as_bot(p))
            for i, (p, n) in enumerate(matched.seats)
        ],
        formed_at=formed_at,
        time_control=control.to_proto(),
        # a private game's rematch is private (a match's game is private when it has a lobby)
        lobby=issued.challenge_id if issued.private else "",
        unrated=not issued.rated,
        challenge_id=issued.challenge_id,
        config=config_bytes(issued.config),
    )
    event = NewEvent(
        MATCH_FORMED,
        formed.SerializeToString(),
        metadata=Metadata(actor="matchmaking", correlation_id=matched.match_id),
    )
    return Append(match_stream(matched.match_id), (event,), NO_STREAM)


def control_json(control: TimeControl) -> dict[str, object]:
    return dict(time_control_json(control))


def random_order(rng: secrets.SystemRandom, seats: int) -> tuple[int, ...]:
    order = list(range(seats))
    rng.shuffle(order)
    return tuple(order)
