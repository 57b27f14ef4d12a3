"""The state of one game, folded from its events."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from parlor.core.game import RESIGNED, TIMED_OUT
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
    number: int = 0
    """The play's number in the game (``UpwordsState.plays`` once it was made): what a
    challenge or an accept names to say which play it means (``check_meant_play``)."""


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
    out: tuple[bool, ...] = ()
    """Seats that ran out of time and dropped out: their turns are skipped."""
    resigned: tuple[bool, ...] = ()
    """Seats that resigned and dropped out, the others playing on (rules 2): skipped too."""
    plays: int = 0
    """Plays made so far (``WordPlayed``, withdrawn ones too): the last one's number."""

    @property
    def players(self) -> int:
        return len(self.seats)

    def next_seat(self, seat: int) -> int:
        """Play passes to the left, in seat order, over the seats that dropped out."""
        n = len(self.seats)
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if not self.is_out(candidate):
                return candidate
        return (seat + 1) % n

    def is_out(self, seat: int) -> bool:
        return (bool(self.out) and self.out[seat]) or self.has_resigned(seat)

    def has_resigned(self, seat: int) -> bool:
        return bool(self.resigned) and self.resigned[seat]

    def has_timed_out(self, seat: int) -> bool:
        return bool(self.out) and self.out[seat]

    def departure(self, seat: int) -> str:
        """Why the seat left the game (``RESIGNED``, ``TIMED_OUT``), or "" if it plays on."""
        if self.has_resigned(seat):
            return RESIGNED
        return TIMED_OUT if self.has_timed_out(seat) else ""

    @property
    def active(self) -> int:
        """How many seats still play (every seat, unless some ran out of time or resigned)."""
        return sum(1 for seat in range(len(self.seats)) if not self.is_out(seat))

    def pending_is_final(self) -> bool:
        """A pending play that emptied the rack with the bag empty ends the game once accepted."""
        p = self.pending
        return p is not None and not self.racks[p.seat] and not self.bag
