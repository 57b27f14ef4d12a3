"""The removal rule: which valid crossword remains when tiles may only be removed.

Keep the valid crossword of greatest total value; ties go to the one keeping most
tiles, then to the one whose sorted list of removed (x, y) cells is smallest. The
search is exponential in the worst case, so it works per connected structure,
decides cells row by row (in before out, so good answers come first), checks
every run piece as soon as it is closed, refuses run prefixes no word can
complete, and prunes with the value still reachable from the kept cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

from parlor.rules.takefour.crossword import Cell, WordCheck, components, is_crossword, runs

_UNDECIDED, _IN, _OUT = 0, 1, 2


@dataclass(frozen=True)
class Removal:
    """The outcome for one grid: the cells kept, and the removed cells in sorted order."""

    kept: frozenset[Cell]
    removed: tuple[Cell, ...]

    def key(self, values: Mapping[Cell, int]) -> tuple[int, int, tuple[Cell, ...]]:
        """Smaller is better: (-kept value, -kept tiles, removed cells)."""
        return (-sum(values[c] for c in self.kept), -len(self.kept), self.removed)


def best_crossword(
    letters: Mapping[Cell, str], values: Mapping[Cell, int], is_word: WordCheck
) -> Removal:
    """The crossword the removal rule keeps (nothing for an empty grid)."""
    if not letters:
        return Removal(frozenset(), ())
    every = set(letters)
    parts = sorted(components(letters), key=lambda part: -sum(values[c] for c in part))
    best: _Best | None = None
    for part in parts:
        total = sum(values[c] for c in part)
        if best is not None and (total, len(part)) < (best.value, best.count):
            continue
        best = _Search(part, letters, values, is_word, every, best).run()
    assert best is not None  # a single tile is always a valid crossword
    return Removal(best.kept, best.removed)


@dataclass(frozen=True)
class _Best:
    value: int
    count: int
    removed: tuple[Cell, ...]
    kept: frozenset[Cell]

    def beaten_by(self, value: int, count: int, removed: tuple[Cell, ...]) -> bool:
        return (-value, -count, removed) < (-self.value, -self.count, self.removed)


@dataclass(frozen=True)
class _Bound:
    """The best (value, tiles) still reachable, and the cells the kept ones can reach."""

    best: tuple[int, int]
    reach: set[int] | None


class _Search:
    """Branch and bound over one connected structure of the grid."""

    def __init__(
        self,
        part: list[Cell],
        letters: Mapping[Cell, str],
        values: Mapping[Cell, int],
        is_word: WordCheck,
        every: set[Cell],
        best: _Best | None,
    ) -> None:
        self.cells = part  # row by row: y, then x
        self.every = every
        self.best = best
        index = {cell: i for i, cell in enumerate(part)}
        self.value = [values[c] for c in part]
        self.neighbours = [
            [index[n] for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if n in index]
            for x, y in part
        ]
        # For each cell and axis: (run number, position in run), or None for a lone tile.
        self.place: list[list[tuple[int, int]]] = [[] for _ in part]
        self.run_cells: list[list[int]] = []
        self.valid: list[list[list[bool]]] = []
        self.feasible: list[list[list[bool]]] = []
        sub = {cell: letters[cell] for cell in part}
        for run in runs(sub):
            number = len(self.run_cells)
            ids = [index[c] for c in run]
            self.run_cells.append(ids)
            text = "".join(letters[c] for c in run)
            n = len(text)
            valid = [
                [s == e or (e > s and is_word(text[s : e + 1])) for e in range(n)] for s in range(n)
            ]
            feasible = [[False] * n for _ in range(n)]
            for s in range(n):
                ahead = False
                for e in range(n - 1, s - 1, -1):
                    ahead = ahead or valid[s][e]
                    feasible[s][e] = ahead
            self.valid.append(valid)
            self.feasible.append(feasible)
            for position, cell_id in enumerate(ids):
                self.place[cell_id].append((number, position))
        self.state = [_UNDECIDED] * len(part)
        self.in_count = 0
        self.in_value = 0

    def run(self) -> _Best | None:
        bound = self._bound()
        if bound is not None:
            self._decide(0, bound)
        return self.best

    def _start(self, number: int, position: int) -> int:
        ids, state = self.run_cells[number], self.state
        start = position
        while start > 0 and state[ids[start - 1]] == _IN:
            start -= 1
        return start

    def _fits_in(self, cell: int) -> bool:
        for number, position in self.place[cell]:
            if not self.feasible[number][self._start(number, position)][position]:
                return False
        return True

    def _fits_out(self, cell: int) -> bool:
        for number, position in self.place[cell]:
            if position > 0 and self.state[self.run_cells[number][position - 1]] == _IN:
                start = self._start(number, position - 1)
                if not self.valid[number][start][position - 1]:
                    return False
        return True

    def _bound(self) -> _Bound | None:
        """Best (value, tiles) still reachable, or None if the kept cells cannot connect."""
        state, value, neighbours = self.state, self.value, self.neighbours
        if self.in_count:
            start = state.index(_IN)
            seen = {start}
            stack = [start]
            kept = 0
            total = 0
            while stack:
                cell = stack.pop()
                total += value[cell]
                kept += state[cell] == _IN
                for n in neighbours[cell]:
                    if n not in seen and state[n] != _OUT:
                        seen.add(n)
                        stack.append(n)
            if kept < self.in_count:
                return None
            bound = (total, len(seen))
            reach: set[int] | None = seen
        else:
            bound = (-1, 0)
            seen = set()
            for first in range(len(state)):
                if state[first] != _UNDECIDED or first in seen:
                    continue
                seen.add(first)
                stack = [first]
                total = count = 0
                while stack:
                    cell = stack.pop()
                    total += value[cell]
                    count += 1
                    for n in neighbours[cell]:
                        if n not in seen and state[n] == _UNDECIDED:
                            seen.add(n)
                            stack.append(n)
                bound = max(bound, (total, count))
            if bound[1] == 0:
                return None
            reach = None
        if self.best is not None and bound < (self.best.value, self.best.count):
            return None
        return _Bound(bound, reach)

    def _decide(self, cell: int, bound: _Bound) -> None:
        if cell == len(self.cells):
            self._leaf()
            return
        state = self.state
        if (bound.reach is None or cell in bound.reach) and self._fits_in(cell):
            state[cell] = _IN
            self.in_count += 1
            self.in_value += self.value[cell]
            inner = self._bound() if self.in_count == 1 else bound
            if inner is not None and (
                self.best is None or inner.best >= (self.best.value, self.best.count)
            ):
                self._decide(cell + 1, inner)
            self.in_count -= 1
            self.in_value -= self.value[cell]
        if self._fits_out(cell):
            state[cell] = _OUT
            inner = self._bound()
            if inner is not None:
                self._decide(cell + 1, inner)
        state[cell] = _UNDECIDED

    def _leaf(self) -> None:
        if not self.in_count:
            return
        kept = frozenset(c for c, s in zip(self.cells, self.state, strict=True) if s == _IN)
        removed = tuple(sorted(self.every - kept))
        if self.best is None or self.best.beaten_by(self.in_value, self.in_count, removed):
            self.best = _Best(self.in_value, self.in_count, removed, kept)


def best_crossword_brute(
    letters: Mapping[Cell, str], values: Mapping[Cell, int], is_word: WordCheck
) -> Removal:
    """Every subset, checked whole: the slow reference the search is tested against."""
    cells = sorted(letters)
    best: Removal | None = None
    for size in range(len(cells), 0, -1):
        for kept_cells in combinations(cells, size):
            kept = {c: letters[c] for c in kept_cells}
            if not is_crossword(kept, is_word):
                continue
            option = Removal(frozenset(kept), tuple(c for c in cells if c not in kept))
            if best is None or option.key(values) < best.key(values):
                best = option
    return best or Removal(frozenset(), ())
