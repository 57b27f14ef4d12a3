"""The removal rule's search agrees with brute force on every small grid."""

from __future__ import annotations

import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.rules.takefour.crossword import Cell, is_crossword
from parlor.rules.takefour.removal import best_crossword, best_crossword_brute
from parlor.rules.takefour.testing import lexicon

STEPS = [(1, 0), (-1, 0), (0, 1), (0, -1), (2, 0), (0, 2)]


def crc_word(word: str) -> bool:
    """A deterministic pseudo-lexicon: about one string in three is a 'word'."""
    return zlib.crc32(word.encode()) % 3 == 0


@st.composite
def grids(draw: st.DrawFn) -> tuple[dict[Cell, str], dict[Cell, int]]:
    cells = [(0, 0)]
    for _ in range(draw(st.integers(0, 10))):
        x, y = draw(st.sampled_from(cells))
        dx, dy = draw(st.sampled_from(STEPS))
        if (x + dx, y + dy) not in cells:
            cells.append((x + dx, y + dy))
    letters = {c: draw(st.sampled_from("ABCDE")) for c in cells}
    values = {c: draw(st.sampled_from([0, 1, 1, 2, 3])) for c in cells}
    return letters, values


@settings(max_examples=300, deadline=None)
@given(grids())
def test_removal_search_matches_brute_force_on_small_grids(
    grid: tuple[dict[Cell, str], dict[Cell, int]],
) -> None:
    letters, values = grid
    found = best_crossword(letters, values, crc_word)
    assert found == best_crossword_brute(letters, values, crc_word)
    assert is_crossword({c: letters[c] for c in found.kept}, crc_word)


def sparse_word(word: str) -> bool:
    """A pseudo-lexicon closer to a real one: about one string in eight is a 'word'."""
    return zlib.crc32(word.encode()) % 8 == 0


@settings(max_examples=300, deadline=None)
@given(grids())
def test_removal_search_matches_brute_force_with_a_sparse_lexicon(
    grid: tuple[dict[Cell, str], dict[Cell, int]],
) -> None:
    letters, values = grid
    found = best_crossword(letters, values, sparse_word)
    assert found == best_crossword_brute(letters, values, sparse_word)


def test_removal_keeps_a_valid_crossword_whole() -> None:
    letters = {(0, 0): "C", (1, 0): "A", (2, 0): "T", (2, 1): "O"}
    kept = best_crossword(letters, dict.fromkeys(letters, 1), lexicon("CAT", "TO"))
    assert kept.removed == ()
    assert kept.kept == frozenset(letters)


def test_removal_of_an_empty_grid_keeps_nothing() -> None:
    kept = best_crossword({}, {}, lexicon())
    assert kept.kept == frozenset()
    assert kept.removed == ()


def test_removal_keeps_the_most_valuable_structure_when_grids_are_split() -> None:
    letters = {(0, 0): "A", (1, 0): "T", (5, 0): "Q"}
    values = {(0, 0): 1, (1, 0): 1, (5, 0): 10}
    kept = best_crossword(letters, values, lexicon("AT"))
    assert kept.kept == frozenset({(5, 0)})
    assert kept.removed == ((0, 0), (1, 0))
