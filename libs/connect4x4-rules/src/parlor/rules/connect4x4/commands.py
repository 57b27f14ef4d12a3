"""What a player (or the service on their behalf) may ask of a Connect 4x4 game."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from parlor.rules.connect4x4.board import Side

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4
CHECKERS_PER_PLAYER: Final = 17
BLOCKERS_PER_PLAYER: Final = 2


@dataclass(frozen=True, slots=True)
class Config:
    """A game's settings, recorded in its first event so a replay needs nothing else."""

    players: int = 2
    first_seat: int = 0
    blockers_count_toward_lines: bool = False


@dataclass(frozen=True, slots=True)
class CreateGame:
    config: Config = field(default_factory=Config)


@dataclass(frozen=True, slots=True)
class DropChecker:
    seat: int
    column: int
    side: Side


@dataclass(frozen=True, slots=True)
class DropBlocker:
    seat: int
    column: int


@dataclass(frozen=True, slots=True)
class Resign:
    seat: int


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The seat's clock ran out (the platform's clock decides when; the rules decide what)."""

    seat: int


Move = DropChecker | DropBlocker
Command = CreateGame | DropChecker | DropBlocker | Resign | TimeOut
