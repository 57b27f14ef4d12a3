"""What players (and the service) ask of the game; each is checked against the current state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from parlor.rules.takefour.state import TakeFourConfig

Verdicts = Mapping[str, bool]
"""Lexicon verdicts the service looked up for the words ``words_to_check`` listed."""


@dataclass(frozen=True)
class CreateGame:
    """The first command: fixes the config and the seats (player ids, in seat order)."""

    config: TakeFourConfig
    seats: tuple[str, ...]


@dataclass(frozen=True)
class StartRound:
    """Randomness as data: the service's shuffle of every tile id for this round."""

    bag_order: tuple[int, ...]


@dataclass(frozen=True)
class PlaceTile:
    """Put a tile from the hand on the grid; a joker needs ``letter``, others may omit it."""

    seat: int
    tile: int
    x: int
    y: int
    letter: str | None = None


@dataclass(frozen=True)
class MoveTile:
    """Move a grid tile to a free cell; a joker may take a new ``letter`` on the way."""

    seat: int
    from_x: int
    from_y: int
    to_x: int
    to_y: int
    letter: str | None = None


@dataclass(frozen=True)
class TakeBackTile:
    seat: int
    x: int
    y: int


@dataclass(frozen=True)
class SwapJoker:
    """Replace the joker at (x, y) with the hand tile of its letter; the joker goes to the hand."""

    seat: int
    tile: int
    x: int
    y: int


@dataclass(frozen=True)
class CallTakeFour:
    """Every tile placed: everyone gets the next deal (checked first in ``auto`` mode)."""

    seat: int
    verdicts: Verdicts = field(default_factory=dict)


@dataclass(frozen=True)
class AgreeToDeal:
    """Stalemate: deal again without a call once every player agrees."""

    seat: int


@dataclass(frozen=True)
class WithdrawAgreement:
    seat: int


@dataclass(frozen=True)
class CallDone:
    """The bag is empty and every tile is placed: the round stops and is scored."""

    seat: int
    verdicts: Verdicts = field(default_factory=dict)


@dataclass(frozen=True)
class MarkIdle:
    """The seat was idle past the time limit (the platform's clock says when)."""

    seat: int


@dataclass(frozen=True)
class Forfeit:
    """The seat gives up the game: idle past the second limit (``TIMEOUT``) or it left."""

    seat: int
    reason: str = "LEFT"


TakeFourCommand = (
    CreateGame
    | StartRound
    | PlaceTile
    | MoveTile
    | TakeBackTile
    | SwapJoker
    | CallTakeFour
    | AgreeToDeal
    | WithdrawAgreement
    | CallDone
    | MarkIdle
    | Forfeit
)
