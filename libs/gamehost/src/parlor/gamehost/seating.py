"""Who sits where: a decider wrapper that records the seats in the game's own stream.

Rule engines know seats by index only. ``Seated`` wraps an engine so its
stream starts with ``SeatsTaken`` (each seat's player id and name), before the
engine's own first events: the service can then tell, from the stream alone,
which caller may act for which seat, and a replay needs nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from parlor.core.decider import Decider, replay
from parlor.core.errors import FailedPrecondition, InvalidArgument, PermissionDenied

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
    """The first event of every game: seat i is ``seats[i]``."""

    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    """How one seat finished: rank 1 wins (equal ranks share a place); score if the game has one."""

    rank: int
    score: int = 0


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


@dataclass(frozen=True, slots=True)
class Table(Generic[S]):
    seats: tuple[Seat, ...]
    game: S

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
    """The engine with its seats: commands other than ``OpenTable`` go to the engine.

    When the engine's game ends, ``GameFinished`` (from ``standings``) follows its
    last event in the same append, so scoring needs to know no game's events.
    """

    def __init__(
        self,
        engine: Decider[S, C, E],
        min_seats: int,
        max_seats: int,
        standings: Standings[S],
    ) -> None:
        self.engine = engine
        self.min_seats = min_seats
        self.max_seats = max_seats
        self.standings = standings

    def initial_state(self) -> Table[S]:
        return Table((), self.engine.initial_state())

    def decide(self, state: Table[S], command: OpenTable[C] | C) -> Sequence[TableEvent | E]:
        if isinstance(command, OpenTable):
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
            opened: list[TableEvent | E] = [SeatsTaken(command.seats)]
            opened += self._with_finish(state.game, self.engine.decide(state.game, command.create))
            return opened
        if not state.seats:
            raise FailedPrecondition("the game has not started", reason="GAME_NOT_STARTED")
        return self._with_finish(state.game, self.engine.decide(state.game, command))

    def _with_finish(self, game: S, events: Sequence[E]) -> list[TableEvent | E]:
        decided: list[TableEvent | E] = list(events)
        if events and not self.engine.is_terminal(game):
            after = replay(self.engine, events, game)
            if self.engine.is_terminal(after):
                reason, standings = self.standings(after)
                decided.append(GameFinished(reason, standings))
        return decided

    def evolve(self, state: Table[S], event: TableEvent | E) -> Table[S]:
        if isinstance(event, SeatsTaken):
            return Table(event.seats, state.game)
        if isinstance(event, GameFinished):
            return state
        return Table(state.seats, self.engine.evolve(state.game, event))

    def is_terminal(self, state: Table[S]) -> bool:
        return self.engine.is_terminal(state.game)

    def replay(self, events: Sequence[TableEvent | E]) -> Table[S]:
        return replay(self, events)
