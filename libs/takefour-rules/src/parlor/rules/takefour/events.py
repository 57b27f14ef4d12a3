"""The facts of a Take Four game. Fields annotated ``Secret`` never reach other players.

``public_event`` (in ``view``) is the one place that strips them; a test checks
that every ``Secret`` field is stripped for every viewer who must not see it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from parlor.core.game import Secret as Secret  # the one marker; re-exported
from parlor.core.game import secret_fields as secret_fields_of
from parlor.rules.takefour.crossword import Cell
from parlor.rules.takefour.state import TakeFourConfig

DealKind = Literal["start", "take_four", "stalemate", "last"]
"""``last``: fewer than deal_size x players remained; each got an equal share, the rest unused.

Rules 2: any deal after which fewer tiles than players remain leaves them unused
(``TilesDealt.unused``, ``bag_left`` 0): the bag counts as empty from then on.
"""


@dataclass(frozen=True)
class GameCreated:
    config: TakeFourConfig
    seats: tuple[str, ...]


@dataclass(frozen=True)
class RoundStarted:
    round: int
    bag: Annotated[tuple[int, ...], Secret]


@dataclass(frozen=True)
class TilesDealt:
    """A deal from the front of the bag; ``hands[seat]`` are that seat's new tile ids."""

    round: int
    kind: DealKind
    hands: Annotated[tuple[tuple[int, ...], ...], Secret]
    unused: Annotated[tuple[int, ...], Secret]
    bag_left: int

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.hands)


@dataclass(frozen=True)
class TilePlaced:
    seat: int
    tile: Annotated[int, Secret]
    x: Annotated[int, Secret]
    y: Annotated[int, Secret]
    letter: Annotated[str, Secret]


@dataclass(frozen=True)
class TileMoved:
    seat: int
    from_x: Annotated[int, Secret]
    from_y: Annotated[int, Secret]
    to_x: Annotated[int, Secret]
    to_y: Annotated[int, Secret]
    letter: Annotated[str, Secret]


@dataclass(frozen=True)
class TileTakenBack:
    seat: int
    x: Annotated[int, Secret]
    y: Annotated[int, Secret]
    tile: Annotated[int, Secret]


@dataclass(frozen=True)
class JokerSwapped:
    """The hand tile ``tile`` took the joker's cell; the joker went back to the hand."""

    seat: int
    x: Annotated[int, Secret]
    y: Annotated[int, Secret]
    tile: Annotated[int, Secret]
    joker: Annotated[int, Secret]


@dataclass(frozen=True)
class TakeFourCalled:
    seat: int


@dataclass(frozen=True)
class DealAgreed:
    seat: int


@dataclass(frozen=True)
class AgreementWithdrawn:
    seat: int


@dataclass(frozen=True)
class DoneCalled:
    """Done was called; ``accepted`` records the round's word verdicts.

    Scoring reads the dictionary's verdicts on every piece of every run of every grid
    (``words_to_check``); the pieces the dictionary accepted are kept here, sorted (every
    other piece was refused), so a replay can decide the round's scoring again from the
    stored events alone. They spell out every grid, so they stay secret until the end.
    ``None`` in games stored before the verdicts were recorded. ``in_hand``: how many tiles
    the caller still held (only an unchecked honor-mode Done, rules 2, has any; public, as
    every hand size is).
    """

    seat: int
    accepted: Annotated[tuple[str, ...] | None, Secret] = None
    in_hand: int = 0


@dataclass(frozen=True)
class RoundScored:
    """Scores are public; which cells each grid lost (``removed``) stays with its owner."""

    round: int
    done_seat: int
    done_valid: bool
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    removed: Annotated[tuple[tuple[Cell, ...], ...], Secret]


@dataclass(frozen=True)
class GameEnded:
    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class SeatIdle:
    """Idle past the time limit: the seat counts as agreeing to every stalemate deal."""

    seat: int


@dataclass(frozen=True)
class SeatForfeited:
    """The seat can no longer act; at each round's end its tiles score as unplaced."""

    seat: int
    reason: str


TakeFourEvent = (
    GameCreated
    | RoundStarted
    | TilesDealt
    | TilePlaced
    | TileMoved
    | TileTakenBack
    | JokerSwapped
    | TakeFourCalled
    | DealAgreed
    | AgreementWithdrawn
    | DoneCalled
    | RoundScored
    | GameEnded
    | SeatIdle
    | SeatForfeited
)


def secret_fields(event_type: type) -> frozenset[str]:
    """The names of an event class's fields annotated ``Secret``."""
    return secret_fields_of(event_type)
