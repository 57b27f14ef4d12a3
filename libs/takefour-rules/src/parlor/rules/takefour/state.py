"""The state of a Take Four game: config, seats, the bag, and each player's hand and grid."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Literal

from parlor.core import game
from parlor.core.errors import InvalidArgument
from parlor.core.game import FORFEITED, LEFT
from parlor.rules.takefour.crossword import Cell
from parlor.rules.takefour.tiles import STANDARD_TILES, TileSet

Checking = Literal["honor", "auto"]

MIN_PLAYERS = 2
MAX_PLAYERS = 8
# Upper bounds of a configuration (the protos declare the same, checked at the edge).
MAX_TARGET = 1_000_000
MAX_ROUNDS = 1_000
MAX_DEAL_SIZE = 100
MAX_TARGET_WITHOUT_ROUNDS = 1_000
"""The highest target of a game without a round limit: a round adds some dozens to a total
(none at all to a player who uses every tile), so a target of a million without one is a
game of tens of thousands of rounds that bots would play for days (``GAME_UNBOUNDED``)."""
BAD_CONFIG = "BAD_CONFIG"
"""Why a config the rules cannot play is refused (one past a bound: ``CONFIG_OUT_OF_RANGE``)."""
COORDINATE_LIMIT = 1000
"""Grid coordinates run from -1000 to 1000 on both axes: room for any crossword of 100 tiles."""

RULES_VERSION = 3
"""The reading of the rules a new game is created with, recorded in its config.

1: as first recorded: a deal short of one tile each still happens (0 tiles each), and
``Done`` always needs an empty hand. 2: RULES.md's Take Four fine points: fewer tiles left
than players count as an empty bag (they stay unused, recorded with the deal that left
them), and in ``honor`` mode ``Done`` is not checked when called. 3: a seat that forfeited
neither wins nor ends the game: the target is reached by a seat still racing, and the
lowest total among them wins (before, every seat counted for both). A game keeps the
reading it was created with, so a replay decides every recorded command as it was decided.
"""
RECORDED_BEFORE_VERSIONS = 1
"""The rules version of a stored game whose config has none: it was created before them."""


def rules_for_new_game(requested: int) -> int:
    """The rules version a new game asking for ``requested`` (0: the current one) is played by.

    A new game may ask only for the current version: older readings exist to replay the
    games decided by them (``parlor.core.game.rules_for_new_game``).
    """
    return game.rules_for_new_game(requested, RULES_VERSION)


@dataclass(frozen=True)
class TakeFourConfig:
    """Everything RULES.md calls configurable, recorded in the game's first event."""

    tiles: TileSet = STANDARD_TILES
    checking: Checking = "honor"
    target: int = 100
    max_rounds: int | None = None
    deal_size: int = 4
    lexicon: str = "enable1"
    """Which lexicon the service checks words against: recorded here, never read by the rules."""
    rules: int = RULES_VERSION
    """Which reading of the rules the game is decided by (``RULES_VERSION``)."""

    def validate(self) -> None:
        self.tiles.validate()
        if self.checking not in ("honor", "auto"):
            raise InvalidArgument(
                f"checking must be 'honor' or 'auto', got {self.checking!r}", reason=BAD_CONFIG
            )
        if self.target < 1:
            raise InvalidArgument("the target score must be at least 1", reason=BAD_CONFIG)
        if self.max_rounds is not None and self.max_rounds < 1:
            raise InvalidArgument("max_rounds must be at least 1 when set", reason=BAD_CONFIG)
        if self.deal_size < 1:
            raise InvalidArgument("deal_size must be at least 1", reason=BAD_CONFIG)
        if not 1 <= self.rules <= RULES_VERSION:
            raise InvalidArgument(
                f"rules must be a version from 1 to {RULES_VERSION}", reason=BAD_CONFIG
            )
        if self.max_rounds is None and self.target > MAX_TARGET_WITHOUT_ROUNDS:
            raise InvalidArgument(
                f"a target above {MAX_TARGET_WITHOUT_ROUNDS} needs a round limit (max_rounds):"
                " without one the game would not end in any sensible time",
                reason="GAME_UNBOUNDED",
            )
        for name, value, most in (
            ("target", self.target, MAX_TARGET),
            ("max_rounds", self.max_rounds or 0, MAX_ROUNDS),
            ("deal_size", self.deal_size, MAX_DEAL_SIZE),
        ):
            if value > most:
                raise InvalidArgument(f"{name} is at most {most}", reason="CONFIG_OUT_OF_RANGE")


class Phase(Enum):
    NOT_CREATED = "not_created"
    BETWEEN_ROUNDS = "between_rounds"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True)
class Placement:
    """A tile on a grid and the letter it shows (a joker shows the letter chosen for it)."""

    tile: int
    letter: str


@dataclass(frozen=True)
class Player:
    """One seat's private tiles (hand and grid) and public standing."""

    hand: tuple[int, ...] = ()
    grid: Mapping[Cell, Placement] = field(default_factory=dict)
    agrees_to_deal: bool = False
    calls: int = 0
    total: int = 0
    idle: bool = False
    """Idle past the time limit, until its next action: agrees to every stalemate deal."""
    forfeited: bool = False
    """Out of the game (idle past the second limit, or left): its tiles score as unplaced."""
    timed_out: bool = False
    """Forfeited because it ran out of time (``TIMEOUT``), not because it left."""

    @property
    def departure(self) -> str:
        """Why it is out: ``FORFEITED`` (on time), ``LEFT`` (it left), "" while it races."""
        if not self.forfeited:
            return ""
        return FORFEITED if self.timed_out else LEFT

    @property
    def agrees(self) -> bool:
        """Counts as agreeing to a stalemate deal (it said so, is idle, or forfeited)."""
        return self.agrees_to_deal or self.idle or self.forfeited

    def letters(self) -> dict[Cell, str]:
        return {cell: p.letter for cell, p in self.grid.items()}


@dataclass(frozen=True)
class RoundResult:
    round: int
    done_seat: int
    scores: tuple[int, ...]


@dataclass(frozen=True)
class TakeFourState:
    """Hands are sorted tile ids; ``bag`` is the undealt rest of the round's order, front first."""

    phase: Phase = Phase.NOT_CREATED
    config: TakeFourConfig = field(default_factory=TakeFourConfig)
    seats: tuple[str, ...] = ()
    players: tuple[Player, ...] = ()
    round: int = 0
    bag: tuple[int, ...] = ()
    unused: tuple[int, ...] = ()
    results: tuple[RoundResult, ...] = ()
    winners: tuple[int, ...] = ()
    """Once over, the seats ``GameEnded`` named the winners (the result reads them here)."""

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(p.total for p in self.players)

    @property
    def contenders(self) -> tuple[int, ...]:
        """The seats the target and the win are decided among: those still racing (rules 3;
        a seat that forfeited is still dealt and scored), every seat (rules 1 and 2)."""
        if self.config.rules < 3:
            return tuple(range(len(self.players)))
        return tuple(seat for seat, p in enumerate(self.players) if not p.forfeited)

    @property
    def bag_empty(self) -> bool:
        """Whether the bag counts as empty: nothing more can be dealt, Done may be called."""
        return bag_counts_as_empty(self.config, len(self.bag), len(self.players))

    def with_player(self, seat: int, player: Player) -> TakeFourState:
        players = list(self.players)
        players[seat] = player
        return replace(self, players=tuple(players))


def bag_counts_as_empty(config: TakeFourConfig, bag: int, players: int) -> bool:
    """Fewer tiles than players is no deal (rules 2); rules 1 waited for the last tile."""
    return bag < players if config.rules >= 2 else bag == 0
