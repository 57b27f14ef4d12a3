"""A tournament's state: what its events say so far (folded by ``TOURNAMENTS.evolve``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from parlor.tournamentrules.settings import Settings

NEW: Final = "NEW"
"""Nothing created yet."""
OPEN: Final = "OPEN"
"""Created, taking entrants, not started."""
RUNNING: Final = "RUNNING"
FINISHED: Final = "FINISHED"

ACTIVE: Final = "ACTIVE"
PAUSED: Final = "PAUSED"
WITHDRAWN: Final = "WITHDRAWN"
REMOVED: Final = "REMOVED"


@dataclass(frozen=True)
class Entrant:
    player: str
    is_bot: bool
    joined_at_ms: int
    joined_round: int
    """How many rounds had been paired when the player joined (late entry: more than 0)."""
    status: str = ACTIVE
    """ACTIVE, PAUSED (not paired until a rejoin), WITHDRAWN or REMOVED (never again)."""

    @property
    def playing(self) -> bool:
        """Still in the tournament (may be paired, now or after a rejoin)."""
        return self.status in (ACTIVE, PAUSED)


@dataclass(frozen=True)
class Game:
    game_id: str
    round: int
    seats: tuple[str, ...]
    """Players in seat order: the first seat moves first."""
    paired_at_ms: int
    berserk: frozenset[str] = frozenset()
    scores: tuple[tuple[str, int, int, bool, bool], ...] = ()
    """Once scored: per seat (player, place, points, doubled, berserk bonus)."""
    moves: int = 0
    scored_at_ms: int = -1

    @property
    def scored(self) -> bool:
        return self.scored_at_ms >= 0


@dataclass(frozen=True)
class Round:
    """One pairing (a Swiss round, or one wave of an arena's pairing)."""

    number: int
    tables: tuple[tuple[str, tuple[str, ...]], ...]
    byes: tuple[tuple[str, int], ...]
    seed: int
    at_ms: int


@dataclass(frozen=True)
class Tournament:
    settings: Settings | None = None
    organiser: str = ""
    phase: str = NEW
    created_at_ms: int = -1
    started_at_ms: int = -1
    finished_at_ms: int = -1
    entrants: dict[str, Entrant] = field(default_factory=dict)
    """Every entrant, in the order they joined."""
    rounds: tuple[Round, ...] = ()
    games: dict[str, Game] = field(default_factory=dict)
    """Every game paired, in the order paired."""
    player_games: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Player -> the games they were paired in, in order."""
    in_play: dict[str, str] = field(default_factory=dict)
    """Player -> the game they sit at that is not scored yet."""
    points: dict[str, int] = field(default_factory=dict)
    """Player -> points so far (games and byes)."""
    streak: dict[str, int] = field(default_factory=dict)
    """Player -> wins in a row just now (arena)."""

    @property
    def rules(self) -> Settings:
        """The settings (only once created)."""
        assert self.settings is not None, "a tournament's settings exist once it is created"
        return self.settings

    @property
    def arena_ends_at_ms(self) -> int:
        """When an arena's pairing stops (-1 before the start or for a Swiss)."""
        if self.settings is None or not self.settings.is_arena or self.started_at_ms < 0:
            return -1
        return self.started_at_ms + self.settings.duration_ms

    def playing(self) -> list[str]:
        """Entrants still in (active or paused), in the order they joined."""
        return [p for p, e in self.entrants.items() if e.playing]

    def active(self) -> list[str]:
        """Entrants who may be paired now (not paused, withdrawn or removed)."""
        return [p for p, e in self.entrants.items() if e.status == ACTIVE]

    def free(self) -> list[str]:
        """Active players not seated at a game in play, in the order they joined."""
        return [p for p, e in self.entrants.items() if e.status == ACTIVE and p not in self.in_play]
