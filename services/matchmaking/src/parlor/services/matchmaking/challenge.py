"""A challenge as a pure decider: its state, the commands it takes, the events it records.

One stream per challenge (``challenge-<challenge id>``). Everything outside the rules
arrives in the commands: the time (``now``, seconds since the epoch), the match id the
game will have and, for a random seat choice, the order the service drew
(``Accept.draw``, recorded in ``GameMatched``): ``decide`` and ``evolve`` do no I/O, read
no clock and draw nothing.

A challenge names its challenger, the people it invites (none: an open challenge, which
anyone may accept until its seats are filled), the bots that sit with them, the game
type, the time control, the challenger's seat (``first``, ``second``, ``random``, or a
fixed order: a rematch's rotated seats) and whether it is rated. It is pending until every
seat is taken (then ``GameMatched``, which the service records with the match's
``MatchFormed`` in one transaction), or it ends declined, cancelled or expired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from parlor.core.errors import FailedPrecondition, InvalidArgument, PermissionDenied

FIRST, SECOND, RANDOM, FIXED = "first", "second", "random", "fixed"
SEAT_CHOICES = (FIRST, SECOND, RANDOM)
DECLINE_REASONS = ("generic", "too_fast", "too_slow", "not_now", "not_this_game")
PENDING, MATCHED, DECLINED, CANCELLED, EXPIRED, LAPSED = (
    "pending",
    "matched",
    "declined",
    "cancelled",
    "expired",
    "lapsed",
)

# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChallengeIssued:
    challenge_id: str
    challenger: str
    challenger_name: str
    game_type: str
    invitees: tuple[str, ...]
    open_seats: int
    """Seats anyone may take (an open challenge); invitees take the others."""
    bots: tuple[str, ...]
    time_control: dict[str, object]
    seat_choice: str
    rated: bool
    created_at: float
    expires_at: float
    rematch_of: str = ""
    """The finished game this challenge offers to play again (a rematch), if any."""
    seat_order: tuple[str, ...] = ()
    """A ``fixed`` seat choice's order of players (a rematch's rotated seats)."""
    private: bool = False
    """Its game is private (a rematch of a private game)."""
    config: str = ""
    """The game's configuration (``challengeconfig``: base64 of the Any; empty: defaults)."""


@dataclass(frozen=True)
class ChallengeAccepted:
    player_id: str
    display_name: str
    at: float


@dataclass(frozen=True)
class ChallengeDeclined:
    player_id: str
    reason: str
    at: float


@dataclass(frozen=True)
class ChallengeCancelled:
    at: float


@dataclass(frozen=True)
class ChallengeExpired:
    at: float


@dataclass(frozen=True)
class RematchLapsed:
    """A rematch offer lapsed: one of its players started another game meanwhile."""

    player_id: str
    at: float


@dataclass(frozen=True)
class GameMatched:
    """Every seat taken: the game's id (the match's) and its seats in order, the draw of a
    random seat choice included; recorded with the match's ``MatchFormed``."""

    match_id: str
    seats: tuple[tuple[str, str], ...]
    at: float


ChallengeEvent = (
    ChallengeIssued
    | ChallengeAccepted
    | ChallengeDeclined
    | ChallengeCancelled
    | ChallengeExpired
    | RematchLapsed
    | GameMatched
)
EVENT_TYPES: dict[str, type[ChallengeEvent]] = {
    cls.__name__: cls
    for cls in (
        ChallengeIssued,
        ChallengeAccepted,
        ChallengeDeclined,
        ChallengeCancelled,
        ChallengeExpired,
        RematchLapsed,
        GameMatched,
    )
}

# -- commands --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Issue:
    event: ChallengeIssued


@dataclass(frozen=True)
class Accept:
    player_id: str
    display_name: str
    now: float
    match_id: str
    """The game's id should this acceptance take the last seat (drawn by the service)."""
    draw: tuple[int, ...] = ()
    """For a random seat choice: a permutation of the seats, drawn by the service."""


@dataclass(frozen=True)
class Decline:
    player_id: str
    reason: str
    now: float


@dataclass(frozen=True)
class Cancel:
    player_id: str
    now: float


@dataclass(frozen=True)
class Expire:
    now: float


@dataclass(frozen=True)
class Lapse:
    """A rematch's player was seen in another game started after the finished one."""

    player_id: str
    now: float


ChallengeCommand = Issue | Accept | Decline | Cancel | Expire | Lapse

# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Challenge:
    issued: ChallengeIssued | None = None
    status: str = PENDING
    accepted: tuple[tuple[str, str], ...] = ()
    """Who took a seat so far, in order: (player id, display name)."""
    declined_by: str = ""
    decline_reason: str = ""
    match_id: str = ""
    seats: tuple[tuple[str, str], ...] = ()
    changed_at: float = 0.0

    @property
    def exists(self) -> bool:
        return self.issued is not None

    @property
    def is_open(self) -> bool:
        return self.issued is not None and self.issued.open_seats > 0

    def pending_at(self, now: float) -> bool:
        """Still waiting for its seats at ``now`` (not ended, not past its expiry)."""
        return self.issued is not None and self.status == PENDING and now < self.issued.expires_at

    def people(self) -> tuple[str, ...]:
        """Everyone it concerns: the challenger, the invitees, whoever took an open seat."""
        if self.issued is None:
            return ()
        taken = tuple(p for p, _ in self.accepted)
        return tuple(dict.fromkeys((self.issued.challenger, *self.issued.invitees, *taken)))

    def waiting_for(self) -> tuple[str, ...]:
        """The invitees who have not accepted yet."""
        if self.issued is None:
            return ()
        taken = {p for p, _ in self.accepted}
        return tuple(p for p in self.issued.invitees if p not in taken)


Seats = tuple[tuple[str, str], ...]


def seat_order(
    issued: ChallengeIssued, people: Sequence[tuple[str, str]], draw: Sequence[int]
) -> Seats:
    """The game's seats from the challenger (``people[0]``), the others and the bots."""
    bots = [(b, "Bot (" + b.split(":", 1)[1] + ")") for b in issued.bots]
    if issued.seat_choice == FIXED:
        names = dict(people) | dict(bots)
        return tuple((p, names.get(p, p)) for p in issued.seat_order)
    challenger, others = people[0], list(people[1:]) + bots
    if issued.seat_choice == FIRST:
        return (challenger, *others)
    if issued.seat_choice == SECOND:
        return (*others[:1], challenger, *others[1:])
    everyone = [challenger, *others]
    if sorted(draw) != list(range(len(everyone))):
        raise InvalidArgument("a random seat choice needs a drawn order", reason="BAD_DRAW")
    return tuple(everyone[i] for i in draw)


class ChallengeDecider:
    """The challenge's rules: ``decide`` refuses with a reason, ``evolve`` never does."""

    def initial_state(self) -> Challenge:
        return Challenge()

    def is_terminal(self, state: Challenge) -> bool:
        return state.status != PENDING

    def decide(self, state: Challenge, command: ChallengeCommand) -> Sequence[ChallengeEvent]:
        if isinstance(command, Issue):
            if state.exists:
                return []  # issued once; a retry changes nothing
            return [command.event]
        issued = state.issued
        if issued is None:
            raise FailedPrecondition("no such challenge", reason="CHALLENGE_NOT_FOUND")
        if isinstance(command, Expire):
            if state.status == PENDING and command.now >= issued.expires_at:
                return [ChallengeExpired(command.now)]
            return []
        ended = _ended(state, getattr(command, "now", 0.0))
        if isinstance(command, Accept):
            if any(p == command.player_id for p, _ in state.accepted) or (
                command.player_id == issued.challenger and state.status == MATCHED
            ):
                return []  # accepted already: a retry changes nothing
            if ended is not None:
                raise ended
            if command.player_id == issued.challenger:
                raise FailedPrecondition(
                    "you cannot accept your own challenge", reason="OWN_CHALLENGE"
                )
            taken_open = sum(1 for p, _ in state.accepted if p not in issued.invitees)
            if command.player_id not in issued.invitees and taken_open >= issued.open_seats:
                raise PermissionDenied("this challenge is not for you", reason="NOT_INVITED")
            accepted = ChallengeAccepted(command.player_id, command.display_name, command.now)
            people = (
                (issued.challenger, issued.challenger_name),
                *state.accepted,
                (command.player_id, command.display_name),
            )
            if len(people) < 1 + len(issued.invitees) + issued.open_seats:
                return [accepted]
            seats = seat_order(issued, _invitees_first(issued, people), command.draw)
            return [accepted, GameMatched(command.match_id, seats, command.now)]
        if isinstance(command, Decline):
            if state.status == DECLINED and state.declined_by == command.player_id:
                return []
            if ended is not None:
                raise ended
            if command.player_id not in state.waiting_for():
                raise PermissionDenied(
                    "only an invited player who has not accepted may decline",
                    reason="NOT_INVITED",
                )
            if command.reason not in DECLINE_REASONS:
                raise InvalidArgument(
                    f"a decline's reason is one of {', '.join(DECLINE_REASONS)}",
                    reason="BAD_DECLINE_REASON",
                )
            return [ChallengeDeclined(command.player_id, command.reason, command.now)]
        if isinstance(command, Lapse):
            if state.status != PENDING or not issued.rematch_of:
                return []
            return [RematchLapsed(command.player_id, command.now)]
        if isinstance(command, Cancel):
            if command.player_id != issued.challenger:
                raise PermissionDenied(
                    "only the challenger may cancel a challenge", reason="NOT_YOUR_CHALLENGE"
                )
            if state.status == CANCELLED:
                return []
            if ended is not None:
                raise ended
            return [ChallengeCancelled(command.now)]
        raise InvalidArgument(f"unknown command {type(command).__name__}")  # pragma: no cover

    def evolve(self, state: Challenge, event: ChallengeEvent) -> Challenge:
        if isinstance(event, ChallengeIssued):
            return Challenge(issued=event, changed_at=event.created_at)
        if isinstance(event, ChallengeAccepted):
            taken = (*state.accepted, (event.player_id, event.display_name))
            return replace(state, accepted=taken, changed_at=event.at)
        if isinstance(event, ChallengeDeclined):
            return replace(
                state,
                status=DECLINED,
                declined_by=event.player_id,
                decline_reason=event.reason,
                changed_at=event.at,
            )
        if isinstance(event, ChallengeCancelled):
            return replace(state, status=CANCELLED, changed_at=event.at)
        if isinstance(event, ChallengeExpired):
            return replace(state, status=EXPIRED, changed_at=event.at)
        if isinstance(event, RematchLapsed):
            return replace(state, status=LAPSED, changed_at=event.at)
        if isinstance(event, GameMatched):
            return replace(
                state,
                status=MATCHED,
                match_id=event.match_id,
                seats=event.seats,
                changed_at=event.at,
            )
        return state  # pragma: no cover


def _invitees_first(
    issued: ChallengeIssued, people: Sequence[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    """The challenger, then the invitees in the order invited, then open seats' takers."""
    order = {p: i for i, p in enumerate(issued.invitees)}
    rest = sorted(people[1:], key=lambda e: order.get(e[0], len(order)))
    return (people[0], *rest)


def _ended(state: Challenge, now: float) -> FailedPrecondition | None:
    """Why the challenge takes no more answers (None: it is pending)."""
    if state.status == PENDING and state.issued is not None and now >= state.issued.expires_at:
        return FailedPrecondition("this challenge has expired", reason="CHALLENGE_EXPIRED")
    if state.status != PENDING:
        return FailedPrecondition(
            f"this challenge is {state.status}", reason=f"CHALLENGE_{state.status.upper()}"
        )
    return None


CHALLENGES = ChallengeDecider()
