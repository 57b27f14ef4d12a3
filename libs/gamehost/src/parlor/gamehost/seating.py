"""Who sits where: a decider wrapper that records the seats in the game's own stream.

Rule engines know seats by index only. ``Seated`` wraps an engine so its
stream starts with ``SeatsTaken`` (each seat's player id and name), before the
engine's own first events: the service can then tell, from the stream alone,
which caller may act for which seat, and a replay needs nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

from parlor.common.v1 import common_pb2
from parlor.core.decider import Decider, replay
from parlor.core.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from parlor.core.game import Standing as Standing  # a pure value: the rules give standings
from parlor.gamehost.clocks import (
    ABORTED,
    GAME_OVER,
    Abort,
    Clock,
    Fired,
    Preempted,
    Stamp,
    Tick,
    Timed,
    Timing,
    advance,
    clocks_pb,
    deadline,
    stopped,
)
from parlor.gamehost.timecontrol import TimeControl

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

BOT_PREFIX = "bot:"


@dataclass(frozen=True, slots=True)
class Seat:
    player_id: str
    name: str = ""

    @property
    def is_bot(self) -> bool:
        return self.player_id.startswith(BOT_PREFIX)

    @property
    def bot_level(self) -> str | None:
        return self.player_id[len(BOT_PREFIX) :] if self.is_bot else None


@dataclass(frozen=True, slots=True)
class SeatsTaken:
    """The first event of every game: seat i is ``seats[i]``; how the game is timed, and
    whether matchmaking formed it (a matched game nobody starts is aborted)."""

    seats: tuple[Seat, ...]
    time_control: TimeControl = TimeControl()
    matched: bool = False


@dataclass(frozen=True, slots=True)
class GameFinished:
    """The last event of every game, the same for all game types: what scoring consumes."""

    reason: str
    standings: tuple[Standing, ...]


@dataclass(frozen=True, slots=True)
class OpenTable(Generic[C]):
    """Create a game: the seats and the engine's own create command."""

    seats: tuple[Seat, ...]
    create: C
    time_control: TimeControl = TimeControl()
    matched: bool = False


@dataclass(frozen=True, slots=True)
class Table(Generic[S]):
    seats: tuple[Seat, ...]
    game: S
    clock: Clock | None = None
    """The seats' clocks (None: an untimed game, as every game stored before clocks)."""
    aborted: bool = False

    def seats_of(self, player_id: str) -> tuple[int, ...]:
        return tuple(i for i, seat in enumerate(self.seats) if seat.player_id == player_id)

    def seat_of(self, player_id: str, requested: int | None = None) -> int:
        """The seat a caller acts for: theirs, or the requested one if it is theirs."""
        mine = self.seats_of(player_id)
        if requested is not None:
            if not 0 <= requested < len(self.seats):
                raise InvalidArgument(
                    f"seat {requested} does not exist (seats 0 to {len(self.seats) - 1})",
                    reason="INVALID_SEAT",
                )
            if requested not in mine:
                raise PermissionDenied(f"seat {requested} is not yours", reason="NOT_YOUR_SEAT")
            return requested
        if not mine:
            raise PermissionDenied("you have no seat in this game", reason="NOT_SEATED")
        if len(mine) > 1:
            raise InvalidArgument(
                "you hold several seats in this game; say which", reason="SEAT_REQUIRED"
            )
        return mine[0]


Standings = Callable[[S], tuple[str, tuple[Standing, ...]]]
TableEvent = SeatsTaken | GameFinished


class Seated(Generic[S, C, E]):
    """The engine with its seats and clocks: commands other than ``OpenTable`` go to the engine.

    When the engine's game ends, ``GameFinished`` (from ``standings``) follows its
    last event in the same append, so scoring needs to know no game's events.

    A command the host gives with the server's time (``Timed``) first fires the timeouts
    that are due (``timing`` says whose clock runs and what a timeout is in this game's
    rules): a command of a seat that ran out is ``Preempted`` (the timeouts are appended,
    the caller hears ``TIMED_OUT``), one of a seat still in a game the others' timeouts
    ended is too (``GAME_OVER``); another seat's command is decided after them, in the
    same append (``Fired`` says how many events were the timeouts). Bots never run out.
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

    def decide(
        self, state: Table[S], command: OpenTable[C] | C | Timed[Any]
    ) -> Sequence[TableEvent | E]:
        at: datetime | None = None
        if isinstance(command, Timed):
            at, command = command.at, command.command
        if isinstance(command, OpenTable):
            return self._open(state, command)
        if not state.seats:
            raise FailedPrecondition("the game has not started", reason="GAME_NOT_STARTED")
        if isinstance(command, Abort):
            return [self._abort(state)]
        fired: list[TableEvent | E] = []
        before = state
        if at is not None and state.clock is not None and not self.is_terminal(state):
            fired, state = self._fire(state, at)
        if isinstance(command, Tick):
            return Fired(fired, len(fired))
        if fired:
            actor = getattr(command, "seat", None)
            timing = self.timing
            out = isinstance(actor, int) and timing is not None and timing.out(state.game, actor)
            if out:
                raise Preempted(fired, "time ran out before this command: the timeout stands")
            if self.is_terminal(state):
                raise Preempted(fired, self._ended(before, state), reason=GAME_OVER)
        decided = self.engine.decide(state.game, cast(C, command))
        return Fired(fired + self._with_finish(state.game, decided), len(fired))

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

    def _open(self, state: Table[S], command: OpenTable[C]) -> list[TableEvent | E]:
        if state.seats:
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
        opened: list[TableEvent | E] = [
            SeatsTaken(command.seats, command.time_control, command.matched)
        ]
        opened += self._with_finish(state.game, self.engine.decide(state.game, command.create))
        return opened

    def _aborted(self, state: Table[S]) -> GameFinished:
        return GameFinished(ABORTED, tuple(Standing(1) for _ in state.seats))

    def _abort(self, state: Table[S]) -> GameFinished:
        """``Abort``: only a game still going, formed by matchmaking, that a seat has not
        started (what the clock aborts when that seat runs out; see ``_fire``)."""
        if self.is_terminal(state):
            raise FailedPrecondition("the game is over: it cannot be aborted", reason="GAME_OVER")
        clock = state.clock
        if clock is None or not clock.matched:
            raise FailedPrecondition(
                "only a timed game formed by matchmaking can be aborted", reason="NOT_MATCHED"
            )
        if all(seat.acted for seat in clock.seats):
            raise FailedPrecondition(
                "every seat has made its first move: the game can no longer be aborted",
                reason="GAME_STARTED",
            )
        return self._aborted(state)

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

    def _fire(self, state: Table[S], at: datetime) -> tuple[list[TableEvent | E], Table[S]]:
        """The timeouts due at ``at``, one after the other, and the table after them."""
        assert self.timing is not None
        assert state.clock is not None
        fired: list[TableEvent | E] = []
        stamp = Stamp(at)
        for _ in range(2 * len(state.seats) + 1):
            due = self.due(state, at)
            if not due or self.is_terminal(state):
                break
            seat = due[0]
            events: list[TableEvent | E]
            clock = state.clock
            if clock is not None and clock.matched and not clock.seats[seat].acted:
                events = [self._aborted(state)]
            else:
                command = self.timing.timeout(state.game, seat)
                events = self._with_finish(state.game, self.engine.decide(state.game, command))
            fired += events
            for event in events:
                state = self.evolve_at(state, event, stamp)
        return fired, state

    def _with_finish(self, game: S, events: Sequence[E]) -> list[TableEvent | E]:
        decided: list[TableEvent | E] = list(events)
        if events and not self.engine.is_terminal(game):
            after = replay(self.engine, events, game)
            if self.engine.is_terminal(after):
                reason, standings = self.standings(after)
                if self.timing is not None:
                    timing = self.timing
                    standings = tuple(
                        Standing(s.rank, s.score, True) if timing.out(after, i) else s
                        for i, s in enumerate(standings)
                    )
                decided.append(GameFinished(reason, standings))
        return decided

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
                )
            return Table(event.seats, state.game, clock)
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

    def is_terminal(self, state: Table[S]) -> bool:
        return state.aborted or self.engine.is_terminal(state.game)

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
