"""Commands: what a seat (or the service, for creation) asks the game to do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from parlor.rules.upwords.config import UpwordsConfig


@dataclass(frozen=True)
class Placement:
    """One tile put on a square (empty or on top of a stack); 0-based row and column."""

    row: int
    col: int
    tile: str


@dataclass(frozen=True)
class CreateGame:
    """Start a game; both orders are full shuffles of the 100 tiles chosen by the service.

    ``first_draw_order`` is the bag the first-player draw is taken from; all those
    tiles go back and ``bag_order`` is the bag after the re-mix, from which racks
    and every later draw are taken (from the front).
    """

    config: UpwordsConfig
    seats: tuple[str, ...]
    first_draw_order: tuple[str, ...]
    bag_order: tuple[str, ...]


@dataclass(frozen=True)
class Play:
    """Place tiles in one line; ``verdicts`` answers the dictionary for ``words_formed``."""

    seat: int
    placements: tuple[Placement, ...]
    verdicts: Mapping[str, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class Pass:
    seat: int


@dataclass(frozen=True)
class Exchange:
    """Swap one rack tile: draw the bag's front tile, then put ``tile`` back at ``position``.

    ``position`` (0 <= position < bag count) is chosen at random by the service.
    """

    seat: int
    tile: str
    position: int


@dataclass(frozen=True)
class Challenge:
    """Challenge the pending play (challenge mode); ``verdicts`` covers its words."""

    seat: int
    verdicts: Mapping[str, bool]


@dataclass(frozen=True)
class AcceptPlay:
    """The next seat lets the pending play stand without playing (e.g. the last play)."""

    seat: int


@dataclass(frozen=True)
class Resign:
    seat: int


@dataclass(frozen=True)
class TimeOut:
    """The seat's clock ran out (the platform's clock says when; these rules say what)."""

    seat: int


Command = CreateGame | Play | Pass | Exchange | Challenge | AcceptPlay | Resign | TimeOut
