"""The facts of a Connect 4x4 game: each carries all that ``evolve`` needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from parlor.rules.connect4x4.board import Cell, Position, Side
from parlor.rules.connect4x4.commands import Config

# Why a game ended or a player was passed over: stable, clients may switch on them.
FOUR_IN_A_LINE: Final = "FOUR_IN_A_LINE"
RESIGNATION: Final = "RESIGNATION"
TIMEOUT: Final = "TIMEOUT"
ALL_CHECKERS_USED: Final = "ALL_CHECKERS_USED"
NO_LEGAL_MOVES: Final = "NO_LEGAL_MOVES"
NO_PIECES_LEFT: Final = "NO_PIECES_LEFT"
NO_OPEN_CELL: Final = "NO_OPEN_CELL"


@dataclass(frozen=True, slots=True)
class GameCreated:
    config: Config


@dataclass(frozen=True, slots=True)
class CheckerDropped:
    seat: int
    column: int
    side: Side
    row: int


@dataclass(frozen=True, slots=True)
class BlockerDropped:
    """``dead`` are the cells left empty beneath the blocker, never to be filled."""

    seat: int
    column: int
    row: int
    dead: tuple[Cell, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerSkipped:
    """The seat had no legal move (``NO_PIECES_LEFT`` or ``NO_OPEN_CELL``) and lost its turn."""

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class GameWon:
    """``line`` is the four positions of the winning line (empty when won by resignation)."""

    seat: int
    line: tuple[Position, ...]
    reason: str = FOUR_IN_A_LINE


@dataclass(frozen=True, slots=True)
class GameTied:
    reason: str


@dataclass(frozen=True, slots=True)
class PlayerResigned:
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerTimedOut:
    """The seat ran out of time: it leaves the game as a resignation does."""

    seat: int


Event = (
    GameCreated
    | CheckerDropped
    | BlockerDropped
    | PlayerSkipped
    | GameWon
    | GameTied
    | PlayerResigned
    | PlayerTimedOut
)
