"""What the service asks of a tournament. Every time is an ``at_ms`` (milliseconds since the
epoch, read by the service); every draw (a pairing's seed, fresh game ids) is a field."""

from __future__ import annotations

from dataclasses import dataclass

from parlor.tournamentrules.settings import Settings


@dataclass(frozen=True)
class Create:
    settings: Settings
    organiser: str
    at_ms: int


@dataclass(frozen=True)
class Join:
    player: str
    is_bot: bool
    at_ms: int
    admitted: bool = False
    """The service admitted this join to an INVITE tournament (a good invitation code, or
    the organiser entering a bot); OPEN tournaments ignore it."""


@dataclass(frozen=True)
class Withdraw:
    player: str
    at_ms: int


@dataclass(frozen=True)
class Remove:
    player: str
    by: str
    reason: str
    at_ms: int
    by_operator: bool = False


@dataclass(frozen=True)
class Pause:
    player: str
    at_ms: int


@dataclass(frozen=True)
class Rejoin:
    player: str
    at_ms: int


@dataclass(frozen=True)
class Start:
    by: str
    at_ms: int
    by_operator: bool = False


@dataclass(frozen=True)
class Pair:
    at_ms: int
    game_ids: tuple[str, ...]
    """Fresh, unguessable ids: at least ``tables_needed(state)``; used in order."""
    seed: int
    """Breaks the pairing's ties (a replay with the same seed pairs alike)."""


@dataclass(frozen=True)
class Berserk:
    player: str
    game_id: str
    at_ms: int


@dataclass(frozen=True)
class RecordResult:
    game_id: str
    places: tuple[tuple[str, int], ...]
    """(player, place) for every seat: place 1 wins; equal places share (a draw)."""
    moves: int
    at_ms: int


@dataclass(frozen=True)
class Finish:
    at_ms: int


Command = (
    Create
    | Join
    | Withdraw
    | Remove
    | Pause
    | Rejoin
    | Start
    | Pair
    | Berserk
    | RecordResult
    | Finish
)
