"""Events: the facts of a game. Fields marked secret are stripped by ``public_event``.

A field is secret when it is annotated ``Secret`` (``parlor.core.game``, the one marker
every game uses); stripped events carry ``None`` there (their public counts stay).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from parlor.core.game import Secret
from parlor.rules.upwords.config import UpwordsConfig
from parlor.rules.upwords.moves import Placement


@dataclass(frozen=True)
class DrawRound:
    """One round of the first-player draw: which seat drew which tile (public)."""

    draws: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class GameCreated:
    config: UpwordsConfig
    seats: tuple[str, ...]
    first_draw: tuple[DrawRound, ...]
    first_seat: int
    racks: Annotated[tuple[tuple[str, ...] | None, ...] | None, Secret]
    bag: Annotated[tuple[str, ...] | None, Secret]
    bag_count: int = 0


@dataclass(frozen=True)
class WordPlayed:
    """Tiles put down; in challenge mode the play stays pending until accepted."""

    seat: int
    placements: tuple[Placement, ...]
    words: tuple[str, ...]
    score: int
    bonus: int


@dataclass(frozen=True)
class TilesDrawn:
    seat: int
    count: int
    drawn: Annotated[tuple[str, ...] | None, Secret]


@dataclass(frozen=True)
class Passed:
    seat: int


@dataclass(frozen=True)
class TileExchanged:
    seat: int
    returned: Annotated[str | None, Secret]
    drawn: Annotated[str | None, Secret]
    position: Annotated[int | None, Secret]


@dataclass(frozen=True)
class PlayAccepted:
    """The challenge window of a pending play closed; the play stands."""

    seat: int


@dataclass(frozen=True)
class ChallengeFailed:
    challenger: int
    seat: int


@dataclass(frozen=True)
class PlayWithdrawn:
    """A successful challenge: the tiles go back to the rack and the score is undone."""

    challenger: int
    seat: int
    invalid_words: tuple[str, ...]
    placements: tuple[Placement, ...]
    score: int


@dataclass(frozen=True)
class PlayerResigned:
    seat: int


@dataclass(frozen=True)
class PlayerTimedOut:
    """The seat ran out of time: it drops out (with two players, it loses)."""

    seat: int


@dataclass(frozen=True)
class GameEnded:
    """Final accounting; the racks left are revealed (the game is over)."""

    reason: str
    racks_left: tuple[tuple[str, ...], ...]
    penalties: tuple[int, ...]
    final_scores: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    GameCreated
    | WordPlayed
    | TilesDrawn
    | Passed
    | TileExchanged
    | PlayAccepted
    | ChallengeFailed
    | PlayWithdrawn
    | PlayerResigned
    | PlayerTimedOut
    | GameEnded
)
