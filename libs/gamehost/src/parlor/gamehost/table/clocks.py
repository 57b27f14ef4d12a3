"""Clocks: each seat's remaining time and deadline as a pure fold over a game's events.

The host reads the server's time once per command, when it arrives (an injectable
``Now``, so tests need no sleeps; a retry after a conflict keeps that time, never earlier
than the game's last stamp) and records it, with the seat that acted, in the metadata of
the events the command appends (``clock_at`` on every event, ``clock_seat`` on the
first). A seat's command that waited on the platform after it arrived (the dictionary's
verdicts) also records when it was decided (``clock_given``): the seat is charged to its
arrival, the seats it gives the turn to start when it was decided. The platform's own
commands (bots' moves) are timed when they are decided. Nothing here reads a clock:
``advance`` folds one event with its ``Stamp`` into the ``Clock``, so live play, replay,
``parlor verify`` and exports compute the same clocks from the same events.

Whose clock runs is the game's to say (``Timing.running``): in turn-based games the seat
to move; in Take Four every seat still racing. A seat's clock starts when it starts
running and is charged when it stops, or when it acts while running.

- ``per_move`` and ``correspondence``: each time a seat's clock starts it has the full
  allowance (``move_seconds``); the deadline is the start plus the allowance.
- ``fischer``: each seat has a bank (``initial_seconds``); the time it ran is taken from
  the bank when it acts, and ``increment_seconds`` is added after each of its moves.
- ``idle`` timing (Take Four, no turns): the clock restarts at each of the seat's own
  actions; the allowance is ``move_seconds`` (``initial_seconds`` for a game clock), times
  ``Timing.factor`` (Take Four: 3 once the seat has been marked idle).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.core.errors import FailedPrecondition
from parlor.gamehost.table.timestamps import set_timestamp
from parlor.gametypes.clockkeys import AT, GIVEN, SEAT
from parlor.gametypes.timecontrol import Kind, TimeControl

S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)
C = TypeVar("C")

Now = Callable[[], datetime]
"""The server's current time (UTC): the host's one source of time, injected in tests."""

TIMED_OUT = "TIMED_OUT"
GAME_OVER = "GAME_OVER"
ABORTED = "ABORTED"


def system_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Stamp:
    """When an event was decided, and (on a command's first event) the seat that acted."""

    at: datetime
    seat: int | None = None
    first: bool = False
    given: datetime | None = None
    """When the clocks the event starts start (None: ``at``): a seat's command is charged
    to its arrival (``at``), the seats it gives the turn to start when it was decided."""

    @property
    def starts(self) -> datetime:
        """When the clocks this event starts (or restarts) start."""
        return self.given if self.given is not None and self.given > self.at else self.at

    def extra(self) -> dict[str, str]:
        out = {AT: self.at.isoformat()}
        if self.first and self.seat is not None:
            out[SEAT] = str(self.seat)
        if self.starts != self.at:
            out[GIVEN] = self.starts.isoformat()
        return out


def stamp_of(extra: Mapping[str, str]) -> Stamp | None:
    """The stamp stored in an event's metadata; None for events of untimed games."""
    at = extra.get(AT)
    if at is None:
        return None
    seat = extra.get(SEAT)
    given = extra.get(GIVEN)
    return Stamp(
        datetime.fromisoformat(at),
        int(seat) if seat is not None else None,
        True,
        datetime.fromisoformat(given) if given is not None else None,
    )


@dataclass(frozen=True, slots=True)
class Timed(Generic[C]):
    """A command with the server time it is decided at (the host wraps every command)."""

    command: C
    at: datetime


@dataclass(frozen=True, slots=True)
class Tick:
    """The sweeper's command: fire the timeouts that are due, and nothing else."""


@dataclass(frozen=True, slots=True)
class Abort:
    """End a game that has not started (``GameFinished`` reason ``ABORTED``, unrated).

    The clock's (``seat`` None): a matched game whose seat ran out before its first move.
    A seat's own (``seat``): any timed game in which another seat has not made its first
    move though its clock has run ``window`` seconds (None: no window; ``parlor verify``
    re-decides a recorded abort so, its time checked apart). See ``Seated._abort_by``."""

    seat: int | None = None
    window: float | None = None


@dataclass(frozen=True, slots=True)
class Berserk:
    """A seat halves its own clock before its first action (an arena's berserk: lichess
    gives one point more for a win). Only in a timed game whose ``SeatsTaken`` allows it
    (``berserk_allowed``: the tournament's pairing says so); see ``Seated._berserk``."""

    seat: int


class Preempted(FailedPrecondition):
    """A command the timeouts due before it overtake: ``events`` (the timeouts) are appended
    in its place and the caller is told ``reason``: ``TIMED_OUT`` if its own seat ran out,
    ``GAME_OVER`` if the others' timeouts ended the game. ``states``: the table after each
    timeout, as the fold that found them left it (the host appends them without folding)."""

    def __init__(
        self,
        events: Sequence[Any],
        message: str,
        reason: str = TIMED_OUT,
        states: Sequence[Any] = (),
    ) -> None:
        super().__init__(message, reason=reason)
        self.events = list(events)
        self.states = tuple(states)


class Timing(Protocol[S_contra]):
    """What a game tells the clocks (declared beside its rules, in its ``game.py``)."""

    @property
    def idle(self) -> bool:
        """True: a seat's clock restarts at each of its own actions (no turns: Take Four)."""
        ...

    def running(self, game: S_contra) -> tuple[int, ...]:
        """The seats whose clocks run in this state."""
        ...

    def timeout(self, game: S_contra, seat: int) -> Any:
        """The engine command for ``seat`` running out of time in this state."""
        ...

    def timeout_seat(self, command: Any) -> int | None:
        """The seat ``command`` is a timeout of, in whatever state (None: no timeout): what
        ``timeout`` gives for some seat in some state (Take Four: ``MarkIdle`` or a forfeit
        on time), so ``parlor verify`` knows a timeout the host would not fire here."""
        ...

    def factor(self, game: S_contra, seat: int) -> int:
        """How many allowances the seat has before its next timeout (1; Take Four's forfeit: 3)."""
        ...

    def out(self, game: S_contra, seat: int) -> bool:
        """Whether the seat has run out of time (lost, dropped out, forfeited)."""
        ...


@dataclass(frozen=True, slots=True)
class SeatTime:
    bank: float
    """Seconds left (fischer: the bank; per move: the allowance) as of ``since``."""
    since: datetime | None = None
    """When the clock started running; None while it is stopped."""
    acted: bool = False
    """The seat has acted at least once (a matched game is aborted until every seat has; a
    seat whose clock has run the abort window without acting lets the others abort)."""
    berserk: bool = False
    """The seat went berserk (``SeatBerserked``): half the allowance, and no increment."""


@dataclass(frozen=True, slots=True)
class Clock:
    control: TimeControl
    seats: tuple[SeatTime, ...]
    matched: bool = False
    at: datetime | None = None
    """The time of the last stamped event: the moment a view of this version is as of."""
    berserk_allowed: bool = False
    """A seat may go berserk (``SeatsTaken.berserk_allowed``: an arena that allows it)."""

    @classmethod
    def start(
        cls,
        control: TimeControl,
        seats: int,
        matched: bool = False,
        at: datetime | None = None,
        berserk_allowed: bool = False,
    ) -> Clock:
        """Every seat's clock stopped with its first allowance, as of ``at`` (the time the
        seats were taken; None only when folded without stamps)."""
        seats_ = tuple(SeatTime(allowance(control)) for _ in range(seats))
        return cls(control, seats_, matched, at, berserk_allowed)


def berserked(clock: Clock, seat: int) -> Clock:
    """``seat`` gone berserk (lichess's arena): its time is half its first allowance and it
    earns no increment (``advance``); its clock runs on from when it ran (``since``)."""
    seats = list(clock.seats)
    seats[seat] = replace(seats[seat], bank=allowance(clock.control) / 2, berserk=True)
    return replace(clock, seats=tuple(seats))


def allowance(control: TimeControl) -> float:
    """A seat's time when its clock first starts."""
    if control.kind is Kind.FISCHER:
        return float(control.initial_seconds)
    return float(control.move_seconds)


def _banked(control: TimeControl, idle: bool) -> bool:
    """Whether time run is taken from a bank (a game clock in a turn-based game)."""
    return control.kind is Kind.FISCHER and not idle


def advance(
    clock: Clock,
    before: tuple[int, ...],
    after: tuple[int, ...],
    stamp: Stamp,
    idle: bool,
) -> Clock:
    """The clock after one event stamped ``stamp`` that took the running seats from
    ``before`` to ``after``."""
    control, at, starts = clock.control, stamp.at, stamp.starts
    seats = list(clock.seats)
    actor = stamp.seat if stamp.first else None
    for seat in set(before) | set(after):
        if not 0 <= seat < len(seats):
            continue
        time = seats[seat]
        acting = seat == actor and seat in before
        if seat in before and (acting or seat not in after):
            bank = time.bank
            if _banked(control, idle):
                ran = max(0.0, (at - time.since).total_seconds()) if time.since else 0.0
                earned = control.increment_seconds if acting and not time.berserk else 0
                bank = max(0.0, bank - ran) + earned
            since = starts if seat in after else None
            time = replace(time, bank=bank, since=since, acted=time.acted or acting)
        elif seat in after and seat not in before:
            time = replace(time, since=starts)
        seats[seat] = time
    if actor is not None and 0 <= actor < len(seats) and not seats[actor].acted:
        seats[actor] = replace(seats[actor], acted=True)
    return replace(clock, seats=tuple(seats), at=starts)


def stopped(clock: Clock, at: datetime | None, idle: bool) -> Clock:
    """Every clock stopped (the game ended), a bank charged the time it ran."""
    seats = []
    for time in clock.seats:
        if time.since is not None:
            bank = time.bank
            if _banked(clock.control, idle) and at is not None:
                bank = max(0.0, bank - max(0.0, (at - time.since).total_seconds()))
            time = replace(time, bank=bank, since=None)
        seats.append(time)
    return replace(clock, seats=tuple(seats), at=at or clock.at)


def deadline(clock: Clock, seat: int, factor: int = 1, idle: bool = False) -> datetime | None:
    """When ``seat`` runs out if it does not act (None: its clock is stopped)."""
    time = clock.seats[seat]
    if time.since is None:
        return None
    seconds = time.bank if _banked(clock.control, idle) else time.bank * factor
    return time.since + timedelta(seconds=seconds)


def remaining(clock: Clock, seat: int, at: datetime, factor: int = 1, idle: bool = False) -> float:
    """Seconds ``seat`` has left at ``at`` (never below 0; a stopped clock's full time)."""
    due = deadline(clock, seat, factor, idle)
    if due is None:
        return clock.seats[seat].bank
    return max(0.0, (due - at).total_seconds())


def clocks_pb(
    clock: Clock | None,
    running: Sequence[int],
    factors: Sequence[int],
    out: Sequence[bool],
    idle: bool,
    as_of: datetime | None = None,
) -> common_pb2.Clocks:
    """The ``Clocks`` message of a view (empty for an untimed game): as of ``as_of``, else
    of the last stamped event (never the wall clock: a stored version's view is the same
    whenever it is built); a clock folded without stamps has no ``as_of``."""
    if clock is None:
        return common_pb2.Clocks(time_control=TimeControl().to_proto())
    at = as_of or clock.at
    message = common_pb2.Clocks(time_control=clock.control.to_proto())
    if at is not None:
        set_timestamp(message.as_of, at)
    for seat in range(len(clock.seats)):
        due = deadline(clock, seat, factors[seat], idle) if seat in running else None
        seat_clock = message.seats.add(
            seat=seat, running=due is not None, timed_out=bool(out[seat])
        )
        left = remaining(clock, seat, at, factors[seat], idle) if at else clock.seats[seat].bank
        seat_clock.remaining.FromTimedelta(timedelta(seconds=round(left, 3)))
        if due is not None:
            set_timestamp(seat_clock.deadline, due)
    return message


def shows_clocks(game: Message) -> bool:
    """Whether a ``Game`` message shows clocks: a game whose message has a ``clocks`` field
    (tic-tac-toe's has none), set (an untimed game's is left out)."""
    return "clocks" in game.DESCRIPTOR.fields_by_name and game.HasField("clocks")


def set_clocks(game: Message, clocks: common_pb2.Clocks) -> Message:
    """Put ``clocks`` in a ``Game`` message that has a ``clocks`` field (others are left);
    an untimed game's are left out, so its views are what they were before clocks."""
    untimed = (common_pb2.TimeControl.KIND_UNSPECIFIED, common_pb2.TimeControl.KIND_NONE)
    if clocks.time_control.kind in untimed:
        return game
    if "clocks" in game.DESCRIPTOR.fields_by_name:
        game.clocks.CopyFrom(clocks)  # type: ignore[attr-defined]
    return game
