"""Building a crossword from a bag of letters: the bot's search (an anagram search that crosses).

Every tile must end up in the crossword, so the search always places the
hardest letter still unplaced (highest value first): a word containing it,
crossing tiles already down, with every new cross run a word. Words come from a
``WordIndex``, filtered once per build to those the whole pool could spell.
The search is depth first with a budget of placement checks; it remembers the
largest valid crossword met, so a failed search still leaves a good partial one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from parlor.rules.takefour.crossword import ACROSS, DOWN, Cell
from parlor.rules.takefour.tiles import LETTERS

_BIT = {letter: 1 << i for i, letter in enumerate(LETTERS)}

_Entry = tuple[str, int, tuple[tuple[str, int], ...]]
"""A word, its letter mask and its letter counts."""


def _mask(word: str) -> int:
    mask = 0
    for letter in word:
        mask |= _BIT[letter]
    return mask


class WordIndex:
    """The bot's own index of a word list: upper-case A-Z words of 2+ letters, with letter masks."""

    def __init__(self, words: Iterable[str], max_length: int = 15) -> None:
        cleaned = {w.strip().upper() for w in words if 2 <= len(w.strip()) <= max_length}
        self.words = frozenset(w for w in cleaned if all(c in _BIT for c in w))
        ordered = sorted(self.words, key=lambda w: (-len(w), w))
        self._by_length: dict[int, list[_Entry]] = {}
        for w in ordered:
            entry = (w, _mask(w), tuple(Counter(w).items()))
            self._by_length.setdefault(len(w), []).append(entry)

    @classmethod
    def of(cls, words: Iterable[str] | WordIndex) -> WordIndex:
        """``words`` indexed, unless they are an index already."""
        return words if isinstance(words, WordIndex) else cls(words)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def spellable(self, letters: Mapping[str, int], jokers: int) -> list[str]:
        """Words the letters (plus ``jokers`` wild tiles) can spell, longest first."""
        return [entry[0] for entry in self.spellable_entries(letters, jokers)]

    def spellable_entries(self, letters: Mapping[str, int], jokers: int) -> list[_Entry]:
        """As ``spellable``, with each word's letter counts."""
        have = 0
        for letter, count in letters.items():
            if count > 0:
                have |= _BIT[letter]
        found: list[_Entry] = []
        longest = sum(letters.values()) + jokers
        entries = (
            entry
            for length in sorted(self._by_length, reverse=True)
            if length <= longest
            for entry in self._by_length[length]
        )
        for entry in entries:
            _word, mask, counts = entry
            if (mask & ~have).bit_count() > jokers:
                continue
            short = 0
            for letter, count in counts:
                extra = count - letters.get(letter, 0)
                if extra > 0:
                    short += extra
            if short <= jokers:
                found.append(entry)
        return found


@dataclass
class Layout:
    """A crossword under construction: letters by cell, and which cells hold jokers."""

    letters: dict[Cell, str] = field(default_factory=dict)
    jokers: set[Cell] = field(default_factory=set)


@dataclass(frozen=True)
class _Placement:
    new: tuple[tuple[Cell, str, bool], ...]  # cell, letter, played by a joker


class _Builder:
    def __init__(
        self,
        index: WordIndex,
        start: Layout,
        remaining: Counter[str],
        jokers: int,
        hardness: Mapping[str, int],
        budget: int,
    ) -> None:
        self.index = index
        self.grid = start
        self.remaining = remaining
        self.jokers = jokers
        self.hardness = hardness
        self.budget = budget
        # A placement crosses at most two placed tiles, so the tiles to place plus two wild
        # letters spell every word the search can use.
        entries = index.spellable_entries(remaining, jokers + 2 if start.letters else jokers)
        self.candidates = [entry[0] for entry in entries]
        self.counts = {entry[0]: entry[2] for entry in entries}
        self._with_letter: dict[str, list[str]] = {}
        self.best = self._snapshot()

    def with_letter(self, letter: str) -> list[str]:
        """The candidate words containing ``letter`` (longest first), found once per letter."""
        if letter not in self._with_letter:
            self._with_letter[letter] = [w for w in self.candidates if letter in w]
        return self._with_letter[letter]

    def _snapshot(self) -> Layout:
        return Layout(dict(self.grid.letters), set(self.grid.jokers))

    def _unplaced(self) -> int:
        return sum(self.remaining.values()) + self.jokers

    def search(self) -> bool:
        if len(self.grid.letters) > len(self.best.letters):
            self.best = self._snapshot()
        if not self._unplaced():
            return True
        for placement in self._placements():
            self._apply(placement)
            if self.search():
                return True
            self._undo(placement)
            if self.budget <= 0:
                return False
        return False

    def _hardest(self) -> str | None:
        left = [letter for letter, count in self.remaining.items() if count > 0]
        return max(left, key=lambda c: (self.hardness.get(c, 0), c)) if left else None

    def _placements(self) -> Iterator[_Placement]:
        target = self._hardest()
        words = self.with_letter(target) if target else self.candidates
        if not self.grid.letters:
            for word in words:
                self.budget -= 1
                placement = self._fit(word, (0, 0), ACROSS, target)
                if placement is not None:
                    yield placement
                if self.budget <= 0:
                    return
            return
        at: dict[str, list[Cell]] = {}
        for cell, letter in sorted(self.grid.letters.items()):
            at.setdefault(letter, []).append(cell)
        seen: set[tuple[str, Cell, Cell]] = set()
        remaining = self.remaining
        for word in words:
            # Letters the hand lacks must come from jokers or from tiles crossed on the grid.
            short: set[str] = set()
            missing = 0
            for letter, count in self.counts[word]:
                extra = count - remaining[letter]
                if extra > 0:
                    missing += extra
                    short.add(letter)
            if missing > self.jokers + 2:
                continue
            crossing = short if missing > self.jokers else None
            for p, letter in enumerate(word):
                if crossing is not None and letter not in crossing:
                    continue
                for x, y in at.get(letter, ()):
                    for axis in (ACROSS, DOWN):
                        start = (x - p * axis[0], y - p * axis[1])
                        if (word, start, axis) in seen:
                            continue
                        seen.add((word, start, axis))
                        self.budget -= 1
                        placement = self._fit(word, start, axis, target)
                        if placement is not None:
                            yield placement
                        if self.budget <= 0:
                            return

    def _fit(self, word: str, start: Cell, axis: Cell, target: str | None) -> _Placement | None:
        """The new tiles ``word`` needs at ``start`` along ``axis``, if it fits the rules."""
        grid = self.grid.letters
        dx, dy = axis
        x0, y0 = start
        if (x0 - dx, y0 - dy) in grid or (x0 + dx * len(word), y0 + dy * len(word)) in grid:
            return None
        new: list[tuple[Cell, str]] = []
        crossed = False
        for i, letter in enumerate(word):
            cell = (x0 + dx * i, y0 + dy * i)
            here = grid.get(cell)
            if here is not None:
                if here != letter:
                    return None
                crossed = True
            else:
                new.append((cell, letter))
        if not new or (grid and not crossed):
            return None
        need = Counter(letter for _, letter in new)
        if target is not None and need[target] == 0:
            return None
        short = sum(max(0, n - self.remaining[c]) for c, n in need.items())
        if short > self.jokers:
            return None
        for cell, _ in new:
            if not self._cross_ok(cell, (dy, dx), word, start, axis):
                return None
        # Real tiles first, jokers for what is missing (never for the target letter).
        use = Counter(self.remaining)
        placed: list[tuple[Cell, str, bool]] = []
        for cell, letter in sorted(new, key=lambda n: n[1] != target):
            if use[letter] > 0:
                use[letter] -= 1
                placed.append((cell, letter, False))
            else:
                placed.append((cell, letter, True))
        return _Placement(tuple(placed))

    def _cross_ok(self, cell: Cell, axis: Cell, word: str, start: Cell, along: Cell) -> bool:
        """The run across the new word through ``cell`` is a lone tile or a word."""
        grid = self.grid.letters
        dx, dy = axis
        x, y = cell
        letter = word[(x - start[0]) * along[0] + (y - start[1]) * along[1]]
        before = []
        cx, cy = x - dx, y - dy
        while (cx, cy) in grid:
            before.append(grid[(cx, cy)])
            cx, cy = cx - dx, cy - dy
        after = []
        cx, cy = x + dx, y + dy
        while (cx, cy) in grid:
            after.append(grid[(cx, cy)])
            cx, cy = cx + dx, cy + dy
        if not before and not after:
            return True
        return "".join(reversed(before)) + letter + "".join(after) in self.index

    def _apply(self, placement: _Placement) -> None:
        for cell, letter, joker in placement.new:
            self.grid.letters[cell] = letter
            if joker:
                self.grid.jokers.add(cell)
                self.jokers -= 1
            else:
                self.remaining[letter] -= 1

    def _undo(self, placement: _Placement) -> None:
        for cell, letter, joker in placement.new:
            del self.grid.letters[cell]
            if joker:
                self.grid.jokers.discard(cell)
                self.jokers += 1
            else:
                self.remaining[letter] += 1


def build_crossword(
    index: WordIndex,
    letters: Iterable[str],
    jokers: int,
    hardness: Mapping[str, int],
    start: Layout | None = None,
    budget: int = 20_000,
) -> tuple[Layout, bool]:
    """A valid crossword of the letters (added to ``start``), and whether it uses them all.

    ``start`` must itself be a valid crossword; it is extended, never rearranged.
    """
    base = Layout(dict(start.letters), set(start.jokers)) if start else Layout()
    builder = _Builder(index, base, Counter(letters), jokers, hardness, budget)
    done = builder.search()
    return (builder._snapshot() if done else builder.best), done
