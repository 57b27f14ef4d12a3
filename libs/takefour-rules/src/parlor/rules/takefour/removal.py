"""The removal rule: which valid crossword remains when tiles may only be removed.

Keep the valid crossword of greatest total value; ties go to the one keeping most
tiles, then to the one whose sorted list of removed (x, y) cells is smallest. The
search is exponential in the worst case, so: the best lone tile is the bar to
beat; each connected structure is searched on its own (richest first, skipped
when it cannot beat the bar); cells are decided row by row (in before out, so
good answers come first); every run piece is checked as soon as it closes, and a
run prefix no word can complete is refused; cells in no word piece across or down
stay out; and branches are cut when the value still reachable from the kept cells,
or the best each remaining row could keep on its own, cannot beat the bar.

The search has a budget (``NODE_BUDGET`` steps per grid, shared by its structures: a
cell decision is one step, a reachability bound one step per cell of the structure), so
no grid, however big, holds the event loop for long. A search that spends its budget
stops and keeps the best crossword found so far (at least the best lone tile; the first
branch tried keeps every tile it can, so a valid grid is found whole at once). The
search order is fixed, so the budget runs out at the same step for the same grid: the
outcome stays a pure function of the grid, and every replay agrees. Only grids whose
search needs more than the budget can score worse than the exact optimum.

The search recurses once per cell, so a structure of more than ``MAX_SEARCH_CELLS``
tiles is not searched: it is kept whole if it is a valid crossword, and otherwise the
best found elsewhere (at least the best lone tile) stands. Also deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from parlor.rules.takefour.crossword import (
    MAX_WORD_LENGTH,
    Cell,
    WordCheck,
    components,
    is_crossword,
    runs,
)

_UNDECIDED, _IN, _OUT = 0, 1, 2

MAX_SEARCH_CELLS = 400
"""The largest structure searched (one recursion level per cell, within Python's limit)."""

NODE_BUDGET = 1_000_000
"""Search steps one grid may take before it keeps the best found so far (well past what a
grid of ordinary size needs, and a fraction of a second for a 1000-tile one)."""


@dataclass(frozen=True)
class Removal:
    """The outcome for one grid: the cells kept, and the removed cells in sorted order."""

    kept: frozenset[Cell]
    removed: tuple[Cell, ...]

    def key(self, values: Mapping[Cell, int]) -> tuple[int, int, tuple[Cell, ...]]:
        """Smaller is better: (-kept value, -kept tiles, removed cells)."""
        return (-sum(values[c] for c in self.kept), -len(self.kept), self.removed)


def best_crossword(
    letters: Mapping[Cell, str],
    values: Mapping[Cell, int],
    is_word: WordCheck,
    budget: int = NODE_BUDGET,
) -> Removal:
    """The crossword the removal rule keeps (nothing for an empty grid).

    Exact unless the search spends ``budget`` steps: then the best found so far.
    """
    if not letters:
        return Removal(frozenset(), ())
    every = set(letters)
    parts = sorted(components(letters), key=lambda part: -sum(values[c] for c in part))
    # Any lone tile is a valid crossword: the best of them is the bar to beat. The search
    # then looks only for crosswords of two or more tiles.
    best: _Best | None = None
    left = _Budget(budget)
    for cell in letters:
        single = _Best(values[cell], 1, tuple(sorted(every - {cell})), frozenset({cell}))
        if best is None or best.beaten_by(single.value, single.count, single.removed):
            best = single
    for part in parts:
        total = sum(values[c] for c in part)
        if best is not None and (total, len(part)) < (best.value, best.count):
            continue
        if left.spent():
            break
        if len(part) > MAX_SEARCH_CELLS:
            best = _whole(part, letters, values, is_word, every, best)
            continue
        best = _Search(part, letters, values, is_word, every, best, left).run()
    assert best is not None  # a single tile is always a valid crossword
    return Removal(best.kept, best.removed)


def _whole(
    part: list[Cell],
    letters: Mapping[Cell, str],
    values: Mapping[Cell, int],
    is_word: WordCheck,
    every: set[Cell],
    best: _Best | None,
) -> _Best | None:
    """A structure too big to search: kept whole if it is a crossword, else not at all."""
    if not is_crossword({c: letters[c] for c in part}, is_word):
        return best
    removed = tuple(sorted(every - set(part)))
    value = sum(values[c] for c in part)
    if best is None or best.beaten_by(value, len(part), removed):
        return _Best(value, len(part), removed, frozenset(part))
    return best


@dataclass(frozen=True)
class _Best:
    value: int
    count: int
    removed: tuple[Cell, ...]
    kept: frozenset[Cell]

    def beaten_by(self, value: int, count: int, removed: tuple[Cell, ...]) -> bool:
        return (-value, -count, removed) < (-self.value, -self.count, self.removed)


class _Budget:
    """Steps left for one grid's search (shared by its structures)."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spent(self) -> bool:
        return self.left <= 0

    def take(self, steps: int = 1) -> bool:
        """Spend ``steps``; False once the budget does not cover them."""
        self.left -= steps
        return self.left >= 0


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
        budget: _Budget,
    ) -> None:
        self.cells = part  # row by row: y, then x
        self.budget = budget
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
        # A cell in no word piece (across or down) can only ever be kept alone.
        self.linked = [False] * len(part)
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
                [
                    s == e or (s < e < s + MAX_WORD_LENGTH and is_word(text[s : e + 1]))
                    for e in range(n)
                ]
                for s in range(n)
            ]
            feasible = [[False] * n for _ in range(n)]
            for s in range(n):
                ahead = False
                for e in range(n - 1, s - 1, -1):
                    ahead = ahead or valid[s][e]
                    feasible[s][e] = ahead
            self.valid.append(valid)
            self.feasible.append(feasible)
            # A cell is in a word piece if some piece starting at or before it ends at or
            # after it: sweep the starts, keeping the furthest end seen.
            furthest = -1
            for position, cell_id in enumerate(ids):
                self.place[cell_id].append((number, position))
                row = valid[position]
                ends = range(position + 1, min(n, position + MAX_WORD_LENGTH))
                furthest = max(furthest, max((e for e in ends if row[e]), default=-1))
                if furthest >= position:
                    self.linked[cell_id] = True
        self.state = [_UNDECIDED] * len(part)
        self.in_count = 0
        self.in_value = 0
        self._rows(part, letters, is_word)

    def _rows(self, part: list[Cell], letters: Mapping[Cell, str], is_word: WordCheck) -> None:
        """Row bounds: the best each row could keep on its own, ignoring columns and links.

        Cells are decided row by row, so rows below the current cell are untouched and
        their best is computed once; the bound at cell i is what is kept so far, plus every
        cell left in i's row, plus the best of each later row.
        """
        n = len(part)
        self.row_end = [0] * n
        self.row_left = [(0, 0)] * n
        bests: list[tuple[int, int]] = []
        row_of = [0] * n
        start = 0
        while start < n:
            end = start
            x, y = part[start]
            while end + 1 < n and part[end + 1] == (x + end + 1 - start, y):
                end += 1
            text = "".join(letters[c] for c in part[start : end + 1])
            values = [
                v if self.linked[i] else -1 for i, v in enumerate(self.value) if start <= i <= end
            ]
            bests.append(_row_best(text, values, is_word))
            for i in range(start, end + 1):
                row_of[i] = len(bests) - 1
                self.row_end[i] = end
                keep = [j for j in range(i, end + 1) if self.linked[j]]
                self.row_left[i] = (sum(self.value[j] for j in keep), len(keep))
            start = end + 1
        after = [(0, 0)] * (len(bests) + 1)
        for k in range(len(bests) - 1, -1, -1):
            after[k] = (after[k + 1][0] + bests[k][0], after[k + 1][1] + bests[k][1])
        self.rows_after = [after[row_of[i] + 1] for i in range(n)]

    def _row_bound(self, cell: int) -> tuple[int, int]:
        left, later = self.row_left[cell], self.rows_after[cell]
        return (
            self.in_value + left[0] + later[0],
            self.in_count + left[1] + later[1],
        )

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
        state, value, neighbours, linked = self.state, self.value, self.neighbours, self.linked
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
                    if n not in seen and state[n] != _OUT and linked[n]:
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
                if state[first] != _UNDECIDED or first in seen or not linked[first]:
                    continue
                seen.add(first)
                stack = [first]
                total = count = 0
                while stack:
                    cell = stack.pop()
                    total += value[cell]
                    count += 1
                    for n in neighbours[cell]:
                        if n not in seen and state[n] == _UNDECIDED and linked[n]:
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
        if not self.budget.take(1 + len(self.cells)):  # the decision and its bound
            return  # spent: the best so far stands (the same step for the same grid)
        if self.best is not None and self._row_bound(cell) < (self.best.value, self.best.count):
            return
        state = self.state
        reachable = bound.reach is None or cell in bound.reach
        if self.linked[cell] and reachable and self._fits_in(cell):
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


def _row_best(text: str, values: list[int], is_word: WordCheck) -> tuple[int, int]:
    """The most (value, tiles) one run can keep alone: pieces of it that are words or lone.

    A value of -1 marks a cell that cannot be kept.
    """
    n = len(text)
    best = [(0, 0)] * (n + 2)
    for i in range(n - 1, -1, -1):
        option = best[i + 1]  # cell i removed
        total = 0
        for e in range(i, min(n, i + MAX_WORD_LENGTH)):
            if values[e] < 0:
                break  # a cell that can never be kept with others
            total += values[e]
            if e == i or is_word(text[i : e + 1]):
                kept = (total + best[e + 2][0], e + 1 - i + best[e + 2][1])
                option = max(option, kept)
        best[i] = option
    return best[0]
