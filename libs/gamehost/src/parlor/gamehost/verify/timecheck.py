"""The clock half of ``parlor verify``: were the recorded times ones the host decides so?

The rules are pure, so ``verify_history`` re-decides every stored command without its time.
Time is decided by the host (``Seated.decide`` with a ``Timed`` command): before a command
it fires every timeout due at the command's time, and a command of a seat that ran out is
refused ``TIMED_OUT``. Every event of a timed game records that time (``clock_at``, see
``clocks.py``), so the same deadlines can be computed again from the events alone, by the
same fold the host loads a game with (``Seated.evolve_at``). A history is one the host
decides only if:

- every event of a timed game records a time (``TIME_MISSING``), and no time is earlier
  than the one before it (``TIME_BACKWARDS``); the events of one decision share its time
  (``TIME_DIFFERS``);
- a timeout (one of the game's timeout commands, ``Timing.timeout_seat``, or the abort of
  a matched game nobody started) is the one the host fires at its time: the one
  ``Timing.timeout`` gives for its seat in that state (Take Four: ``MarkIdle`` for a seat
  not marked idle, a forfeit on time only for one that is), its seat's deadline is at or
  before it, and no other seat's deadline came earlier (``TIMEOUT_NOT_DUE``);
- any other command is recorded while no seat's deadline has passed (at a deadline the
  host fires the timeout first): else ``PAST_DEADLINE``.

Games without clocks (an untimed ``SeatsTaken``, or stored before clocks) and streams
whose events record no time at all are not checked here; their rules are, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from parlor.gamehost.table.clocks import Abort, Stamp, Tick, Timed, stamp_of
from parlor.gamehost.table.seating import Seated, SeatsTaken, Table

TIME_MISSING = "TIME_MISSING"
TIME_BACKWARDS = "TIME_BACKWARDS"
TIME_DIFFERS = "TIME_DIFFERS"
TIMEOUT_NOT_DUE = "TIMEOUT_NOT_DUE"
PAST_DEADLINE = "PAST_DEADLINE"

Problem = tuple[str, str]
"""(reason, detail) of a recorded time the host would not have decided."""


def stamps_of(extras: Iterable[Mapping[str, str] | None]) -> list[Stamp | None]:
    """The recorded time of each event, from its metadata (None: none recorded)."""
    return [stamp_of(extra) if extra else None for extra in extras]


class Timekeeper:
    """The clocks of one stored game as the host folds them, and the checks of each time.

    ``active`` only for a seated game with clocks whose first event is a timed
    ``SeatsTaken`` and whose events record times; otherwise every check passes and the
    fold is the plain one (a copy of a stream made without its metadata has no times: its
    clocks cannot be checked, its rules are)."""

    def __init__(
        self,
        decider: Any,
        events: Sequence[Any],
        stamps: Sequence[Stamp | None],
        first_version: int = 1,
    ) -> None:
        first = events[0] if events else None
        self.seated: Seated[Any, Any, Any] | None = None
        if (
            isinstance(decider, Seated)
            and decider.timing is not None
            and isinstance(first, SeatsTaken)
            and first.time_control.timed
            and len(stamps) == len(events)
            and any(stamp is not None for stamp in stamps)
        ):
            self.seated = decider
        self.decider = decider
        self.stamps = stamps
        self.first_version = first_version
        self.last: datetime | None = None

    @property
    def active(self) -> bool:
        return self.seated is not None

    def fold(self, state: Any, event: Any, index: int) -> Any:
        """``state`` after the stored event at ``index``, clocks moved by the time it records."""
        if self.seated is None:
            return self.decider.evolve(state, event)
        return self.seated.evolve_at(state, event, self.stamps[index])

    def recorded(self, index: int, decision: int) -> Problem | None:
        """The time of the event at ``index``, in the decision that starts at ``decision``."""
        if self.seated is None:
            return None
        stamp = self.stamps[index]
        if stamp is None:
            return TIME_MISSING, "an event of a timed game records no time (clock_at)"
        at, last = stamp.at, self.last
        if last is not None and at < last:
            return (
                TIME_BACKWARDS,
                f"recorded at {_t(at)}, earlier than the event before it ({_t(last)})",
            )
        start = self.stamps[decision]
        if index != decision and start is not None and at != start.at:
            return (
                TIME_DIFFERS,
                f"recorded at {_t(at)}, but the decision it belongs to (version"
                f" {self.first_version + decision}) was at {_t(start.at)}: one decision,"
                " one time",
            )
        self.last = at
        return None

    def command(self, state: Any, command: Any, index: int) -> Problem | None:
        """Whether the host decides ``command`` in ``state`` at the time of the event at
        ``index``."""
        seated = self.seated
        if seated is None or seated.timing is None or state.clock is None:
            return None
        stamp = self.stamps[index]
        if stamp is None or seated.is_terminal(state):
            return None  # checked already / the rules refuse it
        at = stamp.at
        due = seated.due(state, at)
        fires = _fired(seated, state, due[0]) if due else None
        timeout = _timeout_seat(seated, state, command)
        if timeout is not None:
            if fires == command:
                return None
            deadlines = seated.deadlines(state)
            seat = timeout if timeout >= 0 else None
            what = f"seat {seat}'s timeout" if seat is not None else "the abort"
            expected = seated.timing.timeout(state.game, seat) if seat is not None else None
            if expected is not None and command != expected:
                mine = deadlines.get(seat) if seat is not None else None
                return (
                    TIMEOUT_NOT_DUE,
                    f"{what} {command!r} recorded at {_t(at)} is not one the host fires in"
                    f" this state: its timeout here is {expected!r} (due {_t(mine)})",
                )
            if due:
                first = deadlines[due[0]]
                return (
                    TIMEOUT_NOT_DUE,
                    f"{what} recorded at {_t(at)}, but seat {due[0]}'s deadline"
                    f" ({_t(first)}) came first: the host fires {fires!r}",
                )
            mine = deadlines.get(seat) if seat is not None else None
            if mine is not None:
                return (
                    TIMEOUT_NOT_DUE,
                    f"{what} recorded at {_t(at)}, before its deadline {_t(mine)}",
                )
            earliest = seated.next_deadline(state)
            if earliest is None:
                return TIMEOUT_NOT_DUE, f"{what} recorded at {_t(at)}: no clock was running"
            return (
                TIMEOUT_NOT_DUE,
                f"{what} recorded at {_t(at)}, before any seat's deadline"
                f" (the first: {_t(earliest)})",
            )
        if not due:
            return None
        return PAST_DEADLINE, self._late(state, command, at, due)

    def _late(self, state: Table[Any], command: Any, at: datetime, due: list[int]) -> str:
        """Why a command recorded after a deadline is not one the host decides: it fires
        the timeouts due first, then refuses the command (TIMED_OUT: its seat ran out;
        GAME_OVER: the timeouts ended the game) or decides it after them."""
        seated = self.seated
        assert seated is not None
        assert seated.timing is not None
        deadlines = seated.deadlines(state)
        seat = getattr(command, "seat", None)
        seat = seat if isinstance(seat, int) else None
        name = type(command).__name__
        if seat is not None and seat in due:
            what = f"seat {seat}'s {name} recorded at {_t(at)}, after its own deadline"
            what += f" {_t(deadlines[seat])}"
        else:
            who = f"seat {seat}'s {name}" if seat is not None else name
            what = f"{who} recorded at {_t(at)}, after seat {due[0]}'s deadline"
            what += f" {_t(deadlines[due[0]])}"
        fired = seated.decide(state, Timed(Tick(), at))
        names = ", ".join(type(e).__name__ for e in fired)
        after = fired.states[-1] if fired.states else state
        if seat is not None and seated.timing.out(after.game, seat):
            return f"{what}: the host records {names} and refuses it TIMED_OUT"
        if seated.is_terminal(after):
            return f"{what}: the host records {names} and refuses it GAME_OVER"
        return f"{what}: the host records {names} before it"


def _fired(seated: Seated[Any, Any, Any], state: Table[Any], seat: int) -> Any:
    """The command the host fires for ``seat`` running out (``Seated._fire``)."""
    clock = state.clock
    if clock is not None and clock.matched and not clock.seats[seat].acted:
        return Abort()
    assert seated.timing is not None
    return seated.timing.timeout(state.game, seat)


def _timeout_seat(seated: Seated[Any, Any, Any], state: Table[Any], command: Any) -> int | None:
    """The seat ``command`` is the timeout of (-1: an abort; None: not a timeout): one of the
    game's own timeout commands for a seat (``Timing.timeout_seat``), whether or not it is
    the one ``Timing.timeout`` gives in this state (Take Four: a forfeit on time of a seat
    not marked idle is a timeout the host never fires)."""
    if isinstance(command, Abort):
        return -1 if command.seat is None else None  # a seat's own abort is no timeout
    timing = seated.timing
    assert timing is not None
    seat = timing.timeout_seat(command)
    return seat if seat is not None and 0 <= seat < len(state.seats) else None


def _t(at: datetime | None) -> str:
    return at.isoformat() if at is not None else "none"
