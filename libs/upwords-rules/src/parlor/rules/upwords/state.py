"""The state of one game, folded from its events."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from parlor.rules.upwords.board import EMPTY_BOARD, Board
from parlor.rules.upwords.config import UpwordsConfig
from parlor.rules.upwords.moves import Placement


class Phase(StrEnum):
    NOT_STARTED = "not_started"
    PLAYING = "playing"
    ENDED = "ended"


DEFAULT_CONFIG = UpwordsConfig()


@dataclass(frozen=True)
class PendingPlay:
    """A challenge-mode play still open to challenge, with what undoing it needs."""

    seat: int
    placements: tuple[Placement, ...]
    words: tuple[str, ...]
    score: int
    passes_before: int


@dataclass(frozen=True)
class UpwordsState:
    phase: Phase = Phase.NOT_STARTED
    config: UpwordsConfig = DEFAULT_CONFIG
    seats: tuple[str, ...] = ()
    board: Board = EMPTY_BOARD
    racks: tuple[tuple[str, ...], ...] = ()
    bag: tuple[str, ...] = ()
    scores: tuple[int, ...] = ()
    to_move: int = 0
    passes: int = 0
    pending: PendingPlay | None = None
    retry: bool = False
    end_reason: str = ""
    winners: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return len(self.seats)

    def next_seat(self, seat: int) -> int:
        """Play passes to the left, in seat order."""
        return (seat + 1) % len(self.seats)

    def pending_is_final(self) -> bool:
        """A pending play that emptied the rack with the bag empty ends the game once accepted."""
        p = self.pending
        return p is not None and not self.racks[p.seat] and not self.bag
