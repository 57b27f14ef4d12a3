"""A tournament's events: facts, frozen dataclasses of JSON-friendly fields.

``parlor.accounts.codec.encode`` / ``decode`` round-trip every one of them: JSON lists come
back as tuples (``__post_init__``) and ``TournamentCreated.settings`` comes back as
``Settings``. ``EVENT_TYPES`` maps each type's name to its class for ``decode``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from parlor.tournamentrules.settings import Settings


def _tuples(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    return value


@dataclass(frozen=True)
class _Fact:
    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list):
                object.__setattr__(self, f.name, _tuples(value))


@dataclass(frozen=True)
class TournamentCreated(_Fact):
    settings: Settings
    """Resolved: every default filled in."""
    organiser: str
    at_ms: int

    def __post_init__(self) -> None:
        if isinstance(self.settings, dict):  # from JSON
            object.__setattr__(self, "settings", Settings(**self.settings))


@dataclass(frozen=True)
class PlayerJoined(_Fact):
    player: str
    is_bot: bool
    at_ms: int


@dataclass(frozen=True)
class PlayerWithdrew(_Fact):
    """Before the start the entry is simply gone; after it the player is paired no more."""

    player: str
    at_ms: int


@dataclass(frozen=True)
class PlayerRemoved(_Fact):
    player: str
    by: str
    reason: str
    by_operator: bool
    at_ms: int


@dataclass(frozen=True)
class PlayerPaused(_Fact):
    player: str
    at_ms: int


@dataclass(frozen=True)
class PlayerRejoined(_Fact):
    player: str
    at_ms: int


@dataclass(frozen=True)
class TournamentStarted(_Fact):
    by: str
    at_ms: int


@dataclass(frozen=True)
class TablesPaired(_Fact):
    """One pairing: a Swiss round, or one wave of an arena's pairing (numbered alike)."""

    round: int
    tables: tuple[tuple[str, tuple[str, ...]], ...]
    """(game id, players in seat order: the first seat moves first)."""
    byes: tuple[tuple[str, int], ...]
    """(player, points) of each Swiss bye this round."""
    seed: int
    at_ms: int


@dataclass(frozen=True)
class PlayerBerserked(_Fact):
    player: str
    game_id: str
    at_ms: int


@dataclass(frozen=True)
class GameScored(_Fact):
    game_id: str
    round: int
    scores: tuple[tuple[str, int, int, bool, bool], ...]
    """Per seat, in seat order: (player, place, points, doubled by a streak, berserk bonus)."""
    moves: int
    at_ms: int


@dataclass(frozen=True)
class TournamentFinished(_Fact):
    at_ms: int


TournamentEvent = (
    TournamentCreated
    | PlayerJoined
    | PlayerWithdrew
    | PlayerRemoved
    | PlayerPaused
    | PlayerRejoined
    | TournamentStarted
    | TablesPaired
    | PlayerBerserked
    | GameScored
    | TournamentFinished
)

EVENT_TYPES: dict[str, type[TournamentEvent]] = {
    cls.__name__: cls
    for cls in (
        TournamentCreated,
        PlayerJoined,
        PlayerWithdrew,
        PlayerRemoved,
        PlayerPaused,
        PlayerRejoined,
        TournamentStarted,
        TablesPaired,
        PlayerBerserked,
        GameScored,
        TournamentFinished,
    )
}
