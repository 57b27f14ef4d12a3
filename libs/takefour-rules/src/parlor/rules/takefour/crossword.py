"""What makes a grid a crossword: connected, and every run of 2+ letters a word."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

Cell = tuple[int, int]
"""(x, y): x grows to the right, y grows downward."""

WordCheck = Callable[[str], bool]

MAX_WORD_LENGTH = 64
"""The longest word the dictionary checks (``parlor.lexicon.query.MAX_WORD_LENGTH``: a
longer one in a ``CheckWords`` batch fails the whole batch, ``WORD_TOO_LONG``, and the
request field's own bound is 128). A longer run of letters is never a word: it is never
sent to the dictionary and its verdict is "invalid"."""

ACROSS: Cell = (1, 0)
DOWN: Cell = (0, 1)


def runs(letters: Mapping[Cell, str], min_length: int = 2) -> list[tuple[Cell, ...]]:
    """Maximal runs across (left to right) and down (top to bottom), in a stable order."""
    found: list[tuple[Cell, ...]] = []
    for dx, dy in (ACROSS, DOWN):
        for x, y in sorted(letters, key=lambda c: (c[1], c[0])):
            if (x - dx, y - dy) in letters:
                continue  # not the start of a run
            run = [(x, y)]
            while (run[-1][0] + dx, run[-1][1] + dy) in letters:
                run.append((run[-1][0] + dx, run[-1][1] + dy))
            if len(run) >= min_length:
                found.append(tuple(run))
    return found


def spell(letters: Mapping[Cell, str], run: Iterable[Cell]) -> str:
    return "".join(letters[cell] for cell in run)


def run_words(letters: Mapping[Cell, str]) -> list[str]:
    """The words a crossword claims: its maximal runs of 2+ letters."""
    return [spell(letters, run) for run in runs(letters)]


def checkable(word: str) -> bool:
    """Whether the dictionary can judge ``word`` (longer ones are never words)."""
    return len(word) <= MAX_WORD_LENGTH


def sub_run_words(letters: Mapping[Cell, str]) -> set[str]:
    """Every contiguous piece (2 to ``MAX_WORD_LENGTH`` letters) of every maximal run.

    All removal could leave that might be a word; longer pieces never are.
    """
    words: set[str] = set()
    for run in runs(letters):
        text = spell(letters, run)
        for start in range(len(text) - 1):
            for end in range(start + 2, min(len(text), start + MAX_WORD_LENGTH) + 1):
                words.add(text[start:end])
    return words


def is_connected(cells: Iterable[Cell]) -> bool:
    """True when every cell reaches every other through edge neighbours (empty: False)."""
    remaining = set(cells)
    if not remaining:
        return False
    stack = [remaining.pop()]
    while stack:
        x, y = stack.pop()
        for neighbour in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if neighbour in remaining:
                remaining.remove(neighbour)
                stack.append(neighbour)
    return not remaining


def components(cells: Iterable[Cell]) -> list[list[Cell]]:
    """The connected parts of a grid, each sorted row by row, in row order of first cell."""
    remaining = set(cells)
    parts: list[list[Cell]] = []
    for start in sorted(remaining, key=lambda c: (c[1], c[0])):
        if start not in remaining:
            continue
        remaining.remove(start)
        part = [start]
        stack = [start]
        while stack:
            x, y = stack.pop()
            for neighbour in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if neighbour in remaining:
                    remaining.remove(neighbour)
                    part.append(neighbour)
                    stack.append(neighbour)
        parts.append(sorted(part, key=lambda c: (c[1], c[0])))
    return parts


def crossword_problems(letters: Mapping[Cell, str], is_word: WordCheck) -> list[str]:
    """Why a grid is not a crossword (empty list: it is one); words named are the owner's own."""
    if not letters:
        return ["the grid is empty"]
    problems: list[str] = []
    if not is_connected(letters):
        problems.append("the tiles are not all connected")
    bad = sorted({word for word in run_words(letters) if not is_word(word)})
    if bad:
        problems.append("not words: " + ", ".join(map(_named, bad)))
    return problems


def _named(word: str, shown: int = 32) -> str:
    """A word as an error names it: a long run is cut to a short prefix."""
    return word if len(word) <= shown else f"{word[:shown]}... ({len(word)} letters)"


def is_crossword(letters: Mapping[Cell, str], is_word: WordCheck) -> bool:
    """Non-empty, connected, every run of 2+ letters a word (a lone tile qualifies)."""
    return not crossword_problems(letters, is_word)
