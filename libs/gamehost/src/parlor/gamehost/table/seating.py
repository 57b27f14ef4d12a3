"""Who sits where: a decider wrapper that records the seats in the game's own stream.

Rule engines know seats by index only. ``Seated`` wraps an engine so its
stream starts with ``SeatsTaken`` (each seat's player id and name), before the
engine's own first events: the service can then tell, from the stream alone,
which caller may act for which seat, and a replay needs nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

from parlor.common.v1 import common_pb2
from parlor.core.decider import Decider, replay
from parlor.core.errors import FailedPrecondition, InvalidArgument
from parlor.core.game import Standing as Standing  # a pure value: the rules give standings
from parlor.gamehost.table.clocks import (
    ABORTED,
    GAME_OVER,
    Abort,
    Berserk,
    Clock,
    Preempted,
    Stamp,
    Tick,
    Timed,
    Timing,
    advance,
    berserked,
    clocks_pb,
    deadline,
    stopped,
)
from parlor.gamehost.table.decider import Decided, SeatedDecider
from parlor.gamehost.table.seatrules import SeatRules
from parlor.gamehost.table.table import (
    TABLE_EVENTS,
    GameFinished,
    OpenTable,
    SeatBerserked,
    SeatsTaken,
    Standings,
    Table,
    TableEvent,
)

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

__all__ = [
    "TABLE_EVENTS",
    "GameFinished",
    "OpenTable",
    "SeatBerserked",
    "Seated",
    "SeatsTaken",
    "Standing",
    "Standings",
    "Table",
    "TableEvent",
]  # the table's values (``table``) given with the rules that seat them


class _Fold(Generic[S]):
    """Events as they are decided, each folded into the table once, where it is decided."""

    def __init__(self, seated: Seated[S, Any, Any], table: Table[S]) -> None:
        self.seated = seated
        self.table = table
        self.events: list[Any] = []
        self.stamps: list[Stamp | None] = []
        self.states: list[Table[S]] = []

    def add(self, event: Any, stamp: Stamp | None) -> None:
        self.table = self.seated.evolve_at(self.table, event, stamp)
        self.events.append(event)
        self.stamps.append(stamp)
        self.states.append(self.table)

    def decided(self, fired: int = 0) -> Decided:
        return Decided(self.events, fired, self.stamps, self.states)


class Seated(SeatRules[S], SeatedDecider[Table[S], Any, Any], Generic[S, C, E]):
    """The engine with its seats and clocks: commands other than ``OpenTable`` go to the engine.

    When the engine's game ends, ``GameFinished`` (from ``standings``) follows its
    last event in the same append, so scoring needs to know no game's events.

    A command the host gives with the server's time (``Timed``) first fires the timeouts
    that are due (``timing`` says whose clock runs and what a timeout is in this game's
    rules): a command of a seat that ran out is ``Preempted`` (the timeouts are appended,
    the caller hears ``TIMED_OUT``), one of a seat still in a game the others' timeouts
    ended is too (``GAME_OVER``); another seat's command is decided after them, in the
    same append (``Decided.fired`` says how many events were the timeouts). Bots never
    run out.

    Each event is folded once, where it is decided, stamped as the host records it: the
    fold that finds whether the game ended gives the host the table after each event
    (``Decided.states``; ``Preempted.states`` for timeouts that overtake a command).
    """

    def __init__(
        self,
        engine: Decider[S, C, E],
        min_seats: int,
        max_seats: int,
        standings: Standings[S],
        timing: Timing[S] | None = None,
    ) -> None:
        self.engine = engine
        self.min_seats = min_seats
        self.max_seats = max_seats
        self.standings = standings
        self.timing = timing

    def initial_state(self) -> Table[S]:
        return Table((), self.engine.initial_state())

    def decide(self, state: Table[S], command: OpenTable[C] | C | Timed[Any]) -> Decided:
        """The command's events, each folded once into the table after it (``Decided``)."""
        at: datetime | None = None
        if isinstance(command, Timed):
            at, command = command.at, command.command
        fold = _Fold(self, state)
        if isinstance(command, OpenTable):
            self._open(fold, command, at)
            return fold.decided()
        if not state.seats:
            raise FailedPrecondition("the game has not started", reason="GAME_NOT_STARTED")
        if isinstance(command, Abort) and command.seat is None:
            fold.add(self._abort(state), _stamp(at))
            return fold.decided()
        if at is not None and state.clock is not None and not self.is_terminal(state):
            self._fire(fold, at)
        fired = len(fold.events)
        if isinstance(command, Tick):
            return fold.decided(fired)
        if state.aborted:  # the rules' own state never knows: the abort is the table's
            raise FailedPrecondition(
                "the game was aborted: it takes no more commands", reason="GAME_OVER"
            )
        actor = getattr(command, "seat", None)
        seat = actor if isinstance(actor, int) else None
        if fired:
            timing = self.timing
            now = fold.table
            if seat is not None and timing is not None and timing.out(now.game, seat):
                raise Preempted(
                    fold.events,
                    "time ran out before this command: the timeout stands",
                    states=fold.states,
                )
            if self.is_terminal(now):
                raise Preempted(
                    fold.events, self._ended(state, now), reason=GAME_OVER, states=fold.states
                )
        if isinstance(command, Abort):
            finished = self._abort_by(fold.table, command, at)
            fold.add(finished, None if at is None else Stamp(at, command.seat, True))
            return fold.decided(fired)
        if isinstance(command, Berserk):  # not a seat's action: its clock runs on as it was
            fold.add(self._berserk(fold.table, command), _stamp(at))
            return fold.decided(fired)
        decided = self.engine.decide(fold.table.game, cast(C, command))
        self._with_finish(fold, decided, at, seat)
        return fold.decided(fired)

    def _ended(self, before: Table[S], after: Table[S]) -> str:
        """Why a game the timeouts just ended refuses a seat that is still in it."""
        timing = self.timing
        if after.aborted or timing is None:
            return "the game was aborted: a seat did not make its first move in time"
        gone = [
            str(seat)
            for seat in range(len(after.seats))
            if timing.out(after.game, seat) and not timing.out(before.game, seat)
        ]
        who = f"seat {gone[0]}" if len(gone) == 1 else "seats " + ", ".join(gone)
        return f"the game ended: {who} ran out of time"

    def _open(self, fold: _Fold[S], command: OpenTable[C], at: datetime | None) -> None:
        if fold.table.seats:
            raise FailedPrecondition("the game has already started", reason="GAME_EXISTS")
        if not self.min_seats <= len(command.seats) <= self.max_seats:
            raise InvalidArgument(
                f"a game needs {self.min_seats} to {self.max_seats} seats,"
                f" got {len(command.seats)}",
                reason="INVALID_PLAYER_COUNT",
            )
        for seat in command.seats:
            if not seat.player_id or len(seat.player_id) > 128:
                raise InvalidArgument(
                    "every seat needs a player id of 1 to 128 characters",
                    reason="INVALID_PLAYER_ID",
                )
        if command.time_control.timed and self.timing is None:
            raise InvalidArgument("this game has no clocks", reason="INVALID_TIME_CONTROL")
        if command.berserk_allowed and not command.time_control.timed:
            raise InvalidArgument("berserk needs a timed game", reason="INVALID_TIME_CONTROL")
        taken = SeatsTaken(
            command.seats, command.time_control, command.matched, command.berserk_allowed
        )
        fold.add(taken, _stamp(at))
        self._with_finish(fold, self.engine.decide(fold.table.game, command.create), at, None)

    def due(self, state: Table[S], at: datetime) -> list[int]:
        """The seats out of time at ``at``, earliest deadline first (never a bot)."""
        found = [
            (due, seat)
            for seat, due in self.deadlines(state).items()
            if due is not None and due <= at
        ]
        return [seat for _, seat in sorted(found)]

    def deadlines(self, state: Table[S]) -> dict[int, datetime | None]:
        """Each running seat's deadline (bots' are left out: they never run out)."""
        clock, timing = state.clock, self.timing
        if clock is None or timing is None or self.is_terminal(state):
            return {}
        return {
            seat: deadline(clock, seat, timing.factor(state.game, seat), timing.idle)
            for seat in timing.running(state.game)
            if not state.seats[seat].is_bot
        }

    def next_deadline(self, state: Table[S]) -> datetime | None:
        """When the sweeper should next look at the game (None: never): the earliest
        deadline of a person's running clock. A bot's clock gives none: bots never run
        out, and a bot to move is moved by whoever gave it the turn (a move's or a sweep's
        follow-up), so a table with a bot is not swept for nothing at every pass."""
        found = [d for d in self.deadlines(state).values() if d is not None]
        return min(found) if found else None

    def _fire(self, fold: _Fold[S], at: datetime) -> None:
        """The timeouts due at ``at``, one after the other, folded as they are decided."""
        assert self.timing is not None
        for _ in range(2 * len(fold.table.seats) + 1):
            state = fold.table
            due = self.due(state, at)
            if not due or self.is_terminal(state):
                break
            seat = due[0]
            clock = state.clock
            if clock is not None and clock.matched and not clock.seats[seat].acted:
                fold.add(self._aborted(state), Stamp(at))
            else:
                command = self.timing.timeout(state.game, seat)
                self._with_finish(fold, self.engine.decide(state.game, command), at, None)

    def _with_finish(
        self, fold: _Fold[S], events: Sequence[E], at: datetime | None, seat: int | None
    ) -> None:
        """The engine's events folded, then ``GameFinished`` if they ended the game: the
        fold that finds the end is the one the host keeps. Stamped at ``at`` (None:
        untimed), the acting ``seat`` on the first."""
        over = self.engine.is_terminal(fold.table.game)
        for i, event in enumerate(events):
            fold.add(event, None if at is None else Stamp(at, seat, i == 0))
        after = fold.table.game
        if events and not over and self.engine.is_terminal(after):
            reason, standings = self.standings(after)
            if self.timing is not None:
                timing = self.timing
                standings = tuple(
                    Standing(s.rank, s.score, True, s.departure) if timing.out(after, i) else s
                    for i, s in enumerate(standings)
                )
            fold.add(GameFinished(reason, standings), _stamp(at))

    def evolve(self, state: Table[S], event: TableEvent | E) -> Table[S]:
        return self.evolve_at(state, event, None)

    def evolve_at(self, state: Table[S], event: TableEvent | E, stamp: Stamp | None) -> Table[S]:
        """The table after ``event``, its clocks advanced to ``stamp`` (None: untimed)."""
        if isinstance(event, SeatsTaken):
            clock = None
            if event.time_control.timed:
                clock = Clock.start(
                    event.time_control,
                    len(event.seats),
                    event.matched,
                    stamp.at if stamp is not None else None,
                    event.berserk_allowed,
                )
            return Table(event.seats, state.game, clock)
        if isinstance(event, SeatBerserked):
            if state.clock is None:
                return state
            return Table(state.seats, state.game, berserked(state.clock, event.seat), state.aborted)
        if isinstance(event, GameFinished):
            clock = state.clock
            if clock is not None:
                idle = self.timing is not None and self.timing.idle
                clock = stopped(clock, stamp.at if stamp else None, idle)
            return Table(state.seats, state.game, clock, state.aborted or event.reason == ABORTED)
        game = self.engine.evolve(state.game, event)
        clock = state.clock
        if clock is not None and stamp is not None and self.timing is not None:
            timing = self.timing
            clock = advance(
                clock, timing.running(state.game), timing.running(game), stamp, timing.idle
            )
        return Table(state.seats, game, clock, state.aborted)

    def replay(self, events: Sequence[TableEvent | E]) -> Table[S]:
        return replay(self, events)

    def clocks(self, state: Table[S], as_of: datetime | None = None) -> common_pb2.Clocks:
        """The game's clocks as a view shows them (as of the last event, or ``as_of``)."""
        clock, timing = state.clock, self.timing
        if clock is None or timing is None:
            return clocks_pb(None, (), (), (), False)
        n = len(state.seats)
        running = () if self.is_terminal(state) else timing.running(state.game)
        return clocks_pb(
            clock,
            running,
            [timing.factor(state.game, s) for s in range(n)],
            [timing.out(state.game, s) for s in range(n)],
            timing.idle,
            as_of,
        )


def _stamp(at: datetime | None) -> Stamp | None:
    """The stamp of an event no seat acted in (None: untimed)."""
    return None if at is None else Stamp(at)
