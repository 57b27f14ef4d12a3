"""The 10x10 board of stacks: each square holds up to five tiles, top tile last."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

SIZE = 10
MAX_HEIGHT = 5
CENTRE: frozenset[tuple[int, int]] = frozenset({(4, 4), (4, 5), (5, 4), (5, 5)})

Square = tuple[int, int]
ACROSS: Square = (0, 1)
DOWN: Square = (1, 0)


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


@dataclass(frozen=True)
class Board:
    """Stacks row by row; a frozen value so states compare equal after replay."""

    stacks: tuple[tuple[str, ...], ...] = ((),) * (SIZE * SIZE)

    def stack(self, row: int, col: int) -> tuple[str, ...]:
        return self.stacks[row * SIZE + col]

    def top(self, row: int, col: int) -> str | None:
        s = self.stacks[row * SIZE + col]
        return s[-1] if s else None

    def height(self, row: int, col: int) -> int:
        return len(self.stacks[row * SIZE + col])

    def occupied(self, row: int, col: int) -> bool:
        return on_board(row, col) and bool(self.stacks[row * SIZE + col])

    def is_empty(self) -> bool:
        return not any(self.stacks)

    def tile_count(self) -> int:
        return sum(len(s) for s in self.stacks)

    def placed(self, placements: Iterable[tuple[int, int, str]]) -> Board:
        """The board with one tile added on top of each named square."""
        stacks = list(self.stacks)
        for row, col, tile in placements:
            stacks[row * SIZE + col] = (*stacks[row * SIZE + col], tile)
        return Board(tuple(stacks))

    def lifted(self, squares: Iterable[Square]) -> Board:
        """The board with the top tile of each named square taken back."""
        stacks = list(self.stacks)
        for row, col in squares:
            stacks[row * SIZE + col] = stacks[row * SIZE + col][:-1]
        return Board(tuple(stacks))

    def run(self, row: int, col: int, direction: Square) -> list[Square]:
        """The maximal line of occupied squares through (row, col) in one direction."""
        dr, dc = direction
        r, c = row, col
        while self.occupied(r - dr, c - dc):
            r, c = r - dr, c - dc
        squares: list[Square] = []
        while self.occupied(r, c) or (r, c) == (row, col):
            squares.append((r, c))
            r, c = r + dr, c + dc
            if not on_board(r, c):
                break
        return squares

    def words(self) -> Iterator[list[Square]]:
        """Every run of 2+ occupied squares across and down (the board's words)."""
        for direction in (ACROSS, DOWN):
            dr, dc = direction
            for row in range(SIZE):
                for col in range(SIZE):
                    if not self.occupied(row, col) or self.occupied(row - dr, col - dc):
                        continue
                    squares = self.run(row, col, direction)
                    if len(squares) >= 2:
                        yield squares


EMPTY_BOARD = Board()
