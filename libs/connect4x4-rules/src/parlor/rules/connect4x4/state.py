"""The state of a Connect 4x4 game: immutable, rebuilt by folding its events."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from parlor.core.game import RESIGNED, TIMED_OUT
from parlor.rules.connect4x4.board import COLUMNS, ROWS, Position, Side
from parlor.rules.connect4x4.commands import Config


class Status(enum.Enum):
    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    WON = "won"
    TIED = "tied"


@dataclass(frozen=True, slots=True)
class State:
    """Bitboards per seat and side, plus what is left in each player's hand.

    ``heights`` holds, for side index s and column c at ``s * COLUMNS + c``, the
    number of filled cells of that channel (checkers, blocker layers and dead
    cells): the row the next checker lands on.
    """

    config: Config = field(default_factory=Config)
    status: Status = Status.NOT_STARTED
    turn: int = 0
    front: tuple[int, ...] = ()
    back: tuple[int, ...] = ()
    blockers: tuple[int, ...] = ()
    dead_front: int = 0
    dead_back: int = 0
    heights: tuple[int, ...] = (0,) * (2 * COLUMNS)
    checkers_left: tuple[int, ...] = ()
    blockers_left: tuple[int, ...] = ()
    resigned: tuple[bool, ...] = ()
    """Seats that resigned (not those that ran out of time: ``timed_out``)."""
    timed_out: tuple[bool, ...] = ()
    """Seats that ran out of time. Both kinds left the game (``is_out``); why is kept apart."""
    winner: int | None = None
    line: tuple[Position, ...] = ()
    end_reason: str | None = None
    moves: int = 0

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def over(self) -> bool:
        return self.status in (Status.WON, Status.TIED)

    def height(self, column: int, side: Side) -> int:
        return self.heights[side.index * COLUMNS + column]

    def checkers(self, seat: int, side: Side) -> int:
        return self.front[seat] if side is Side.FRONT else self.back[seat]

    def dead(self, side: Side) -> int:
        return self.dead_front if side is Side.FRONT else self.dead_back

    def all_blockers(self) -> int:
        total = 0
        for bits in self.blockers:
            total |= bits
        return total

    def filled(self, side: Side) -> int:
        """Every cell of one side that holds something (checker, blocker or dead)."""
        total = self.all_blockers() | self.dead(side)
        for bits in self.front if side is Side.FRONT else self.back:
            total |= bits
        return total

    def line_pieces(self, seat: int) -> int:
        """The positions that count for a seat's lines: its checkers on either side."""
        pieces = self.front[seat] | self.back[seat]
        if self.config.blockers_count_toward_lines:
            pieces |= self.blockers[seat]
        return pieces

    def has_timed_out(self, seat: int) -> bool:
        return bool(self.timed_out) and self.timed_out[seat]

    def has_resigned(self, seat: int) -> bool:
        return bool(self.resigned) and self.resigned[seat] and not self.has_timed_out(seat)

    def is_out(self, seat: int) -> bool:
        """The seat left the game: it resigned or ran out of time (its turns are skipped)."""
        return (bool(self.resigned) and self.resigned[seat]) or self.has_timed_out(seat)

    def departure(self, seat: int) -> str:
        """Why the seat left the game (``RESIGNED``, ``TIMED_OUT``), or "" if it is still in."""
        if self.has_timed_out(seat):
            return TIMED_OUT
        return RESIGNED if self.has_resigned(seat) else ""

    def active_seats(self) -> tuple[int, ...]:
        return tuple(seat for seat in range(self.players) if not self.is_out(seat))

    def next_active(self, seat: int) -> int:
        """The first seat after ``seat`` (in seat order) still in the game."""
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if not self.is_out(candidate):
                return candidate
        return seat

    def blocker_row(self, column: int) -> int:
        """Where a blocker would stop: the higher of the column's two channels."""
        return max(self.heights[column], self.heights[COLUMNS + column])

    def can_move(self, seat: int) -> bool:
        if self.checkers_left[seat] and any(h < ROWS for h in self.heights):
            return True
        return bool(self.blockers_left[seat]) and any(
            self.blocker_row(c) < ROWS for c in range(COLUMNS)
        )
