"""The double-sided grid: geometry, bitboards and the precomputed lines of four.

A bitboard is a Python int with one bit per position of the 7x6 front view,
bit ``column * STRIDE + row`` (row 0 is the bottom). The back cell of a
column and row sits directly behind the front one, so one bitboard layout
serves both sides, and a player's weaving lines are simply the lines of the
union ``front | back`` of their checkers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

COLUMNS: Final = 7
ROWS: Final = 6
STRIDE: Final = ROWS + 1  # one spare bit per column keeps columns apart for shift tricks
COLUMN_LETTERS: Final = "abcdefg"
LINE_LENGTH: Final = 4


class Side(enum.Enum):
    """One face of the grid; each column has a channel on each."""

    FRONT = "front"
    BACK = "back"

    @property
    def index(self) -> int:
        return 0 if self is Side.FRONT else 1

    @property
    def other(self) -> Side:
        return Side.BACK if self is Side.FRONT else Side.FRONT


SIDES: Final = (Side.FRONT, Side.BACK)


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A place of the 7x6 front view: a line of four is made of positions."""

    column: int
    row: int


@dataclass(frozen=True, slots=True, order=True)
class Cell:
    """One of the 84 holes of the grid: a position on one side."""

    column: int
    row: int
    side: Side


def bit_index(column: int, row: int) -> int:
    return column * STRIDE + row


def bit(column: int, row: int) -> int:
    return 1 << (column * STRIDE + row)


def position_of(index: int) -> Position:
    return Position(index // STRIDE, index % STRIDE)


def column_mask(column: int) -> int:
    """All six positions of a column, to count or clear it at once."""
    return ((1 << ROWS) - 1) << (column * STRIDE)


BOARD_MASK: Final = sum(column_mask(c) for c in range(COLUMNS))

_DIRECTIONS: Final = ((1, 0), (0, 1), (1, 1), (1, -1))


def _lines() -> tuple[tuple[Position, ...], ...]:
    found: list[tuple[Position, ...]] = []
    for column in range(COLUMNS):
        for row in range(ROWS):
            for dc, dr in _DIRECTIONS:
                end_c, end_r = column + dc * (LINE_LENGTH - 1), row + dr * (LINE_LENGTH - 1)
                if 0 <= end_c < COLUMNS and 0 <= end_r < ROWS:
                    found.append(
                        tuple(Position(column + dc * k, row + dr * k) for k in range(LINE_LENGTH))
                    )
    return tuple(found)


LINE_POSITIONS: Final = _lines()
"""Every window of four positions in a straight line (69 of them)."""

LINES: Final = tuple(sum(bit(p.column, p.row) for p in line) for line in LINE_POSITIONS)
"""The same windows as bitmasks, in the same order."""

_POSITIONS_OF_LINE: Final = dict(zip(LINES, LINE_POSITIONS, strict=True))

LINES_THROUGH: Final = tuple(
    tuple(mask for mask in LINES if mask >> index & 1) for index in range(COLUMNS * STRIDE)
)
"""For each bit index, the windows that contain it: a move can only complete these."""


def line_through(pieces: int, index: int) -> int:
    """The first complete window of ``pieces`` through bit ``index``, or 0."""
    for mask in LINES_THROUGH[index]:
        if pieces & mask == mask:
            return mask
    return 0


def any_line(pieces: int) -> int:
    """The first complete window of ``pieces`` anywhere on the board, or 0."""
    for mask in LINES:
        if pieces & mask == mask:
            return mask
    return 0


def line_positions(mask: int) -> tuple[Position, ...]:
    return _POSITIONS_OF_LINE[mask]


def positions(bits: int) -> tuple[Position, ...]:
    """The positions set in a bitboard, column by column, bottom up."""
    found: list[Position] = []
    while bits:
        low = bits & -bits
        found.append(position_of(low.bit_length() - 1))
        bits ^= low
    return tuple(found)


def column_letter(column: int) -> str:
    return COLUMN_LETTERS[column]
