"""Tic-tac-toe as a pure decider, under the game contract (``parlor.core.game``).

Seat 0 plays X and moves first; squares are 0..8, row by row from a1 (notation a1..c3:
column a-c, row 1-3). Three in a line wins; a full board without one is a draw.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from parlor.core.errors import InvalidNotation, PermissionDenied, RuleViolation
from parlor.core.game import GameContract, Result, Standing, Viewer

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = "XO"


@dataclass(frozen=True)
class Config:
    """Nothing to choose; kept so the game has the contract's shape."""


@dataclass(frozen=True)
class CreateGame:
    config: Config = Config()


@dataclass(frozen=True)
class Place:
    seat: int
    square: int


Command = CreateGame | Place


@dataclass(frozen=True)
class GameCreated:
    config: Config = Config()


@dataclass(frozen=True)
class MarkPlaced:
    seat: int
    square: int


@dataclass(frozen=True)
class GameWon:
    seat: int


@dataclass(frozen=True)
class GameDrawn:
    pass


Event = GameCreated | MarkPlaced | GameWon | GameDrawn


@dataclass(frozen=True)
class State:
    started: bool = False
    squares: tuple[int | None, ...] = (None,) * 9
    turn: int = 0
    winner: int | None = None
    over: bool = False


def parse_square(text: str) -> int:
    """``a1`` .. ``c3`` -> 0..8 (else ``INVALID_NOTATION``, the reason every game shares)."""
    if len(text) != 2 or text[0] not in "abc" or text[1] not in "123":
        raise InvalidNotation(f"a square is a1..c3, got {text[:8]!r}")
    return (int(text[1]) - 1) * 3 + "abc".index(text[0])


def format_square(square: int) -> str:
    return "abc"[square % 3] + str(square // 3 + 1)


class TicTacToeRules:
    def initial_state(self) -> State:
        return State()

    def decide(self, state: State, command: Command) -> list[Event]:
        if isinstance(command, CreateGame):
            if state.started:
                raise RuleViolation("GAME_EXISTS", "the game has already started")
            return [GameCreated(command.config)]
        if not state.started or state.over:
            raise RuleViolation("GAME_NOT_IN_PROGRESS", "the game is not in progress")
        if command.seat != state.turn:
            raise PermissionDenied(f"it is seat {state.turn}'s turn", reason="NOT_YOUR_TURN")
        if not 0 <= command.square < 9:
            raise InvalidNotation("a square is 0..8")
        if state.squares[command.square] is not None:
            raise RuleViolation("SQUARE_TAKEN", f"{format_square(command.square)} is taken")
        events: list[Event] = [MarkPlaced(command.seat, command.square)]
        after = self.evolve(state, events[0])
        if any(all(after.squares[i] == command.seat for i in line) for line in LINES):
            events.append(GameWon(command.seat))
        elif all(s is not None for s in after.squares):
            events.append(GameDrawn())
        return events

    def evolve(self, state: State, event: Event) -> State:
        match event:
            case GameCreated():
                return replace(state, started=True)
            case MarkPlaced(seat, square):
                squares = (*state.squares[:square], seat, *state.squares[square + 1 :])
                return replace(state, squares=squares, turn=1 - seat)
            case GameWon(seat):
                return replace(state, winner=seat, over=True)
            case GameDrawn():
                return replace(state, over=True)
        raise TypeError(f"not a tic-tac-toe event: {event!r}")

    def is_terminal(self, state: State) -> bool:
        return state.over


DECIDER = TicTacToeRules()


# The engine's class names its types as the contract does (State, Event ...): these aliases
# are how its methods refer to them.
Board: TypeAlias = State
Happening: TypeAlias = Event
Move: TypeAlias = Command


class TicTacToeEngine:
    """Nothing is hidden: every viewer sees the whole board and every event."""

    name = "tictactoe"
    decider = DECIDER
    State = State
    Command: Any = Command
    Event: Any = Event
    Config = Config
    min_seats: int = 2
    max_seats: int = 2

    def view(self, state: Board, viewer: Viewer) -> Board:
        return state

    def public_event(self, event: Happening, viewer: Viewer) -> Happening:
        return event

    def result(self, state: Board) -> Result | None:
        if not state.over:
            return None
        if state.winner is None:
            return Result("DRAW", ())
        return Result("THREE_IN_A_LINE", (state.winner,))

    def legal_moves(self, state: Board, seat: int) -> Sequence[Move]:
        if seat not in self.to_move(state):
            return []
        return [Place(seat, i) for i, s in enumerate(state.squares) if s is None]

    def to_move(self, state: Board) -> tuple[int, ...]:
        return (state.turn,) if state.started and not state.over else ()

    def is_terminal(self, state: Board) -> bool:
        return state.over


ENGINE: GameContract[State, Command, Event] = TicTacToeEngine()


def render(state: State) -> str:
    rows = []
    for row in (2, 1, 0):
        marks = (state.squares[row * 3 + c] for c in range(3))
        rows.append(f"{row + 1} " + " ".join("." if m is None else MARKS[m] for m in marks))
    return "\n".join([*rows, "  a b c"])


# -- what the platform asks of the rules ---------------------------------------------------


def standings(state: State) -> tuple[str, tuple[Standing, ...]]:
    """The winner first, the other second; a draw ranks both first."""
    outcome = ENGINE.result(state)
    assert outcome is not None, "standings are asked only of finished games"
    return outcome.reason, tuple(
        Standing(1 if not outcome.winners or seat in outcome.winners else 2) for seat in (0, 1)
    )


def command_of(game: State, event: object) -> Command | None:
    """For replay tools: a placed mark was a player's command; a win or a draw follows."""
    return Place(event.seat, event.square) if isinstance(event, MarkPlaced) else None


def create_of(created: object) -> CreateGame:
    """For replay tools: the create command of the game's ``GameCreated``."""
    if not isinstance(created, GameCreated):
        raise ValueError("a tic-tac-toe game's rules start with GameCreated")
    return CreateGame(created.config)


def record(moves: Sequence[object]) -> str:
    """A game's record in its notation (``ExportGame``): its squares in order ("b2 a1 ...")."""
    return " ".join(format_square(e.square) for e in moves if isinstance(e, MarkPlaced))


def random_move(state: State, seat: int, rng: random.Random) -> Command:
    """The one bot: any of the seat's legal squares."""
    return rng.choice(ENGINE.legal_moves(state, seat))


class TicTacToe:
    """The game as the platform hosts it, one value (``GAME``): its create, its opening
    (nothing drawn) and its bot, a pure strategy played inline (``bots_think`` False)."""

    bots_think = False

    def create(
        self, config: Config | None, players: tuple[str, ...], bots: tuple[bool, ...]
    ) -> CreateGame:
        return CreateGame()

    def opening(self, create: CreateGame) -> None:
        return None

    def bot(self, level: str) -> Any:
        return random_move


GAME = TicTacToe()
