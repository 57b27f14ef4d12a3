"""The removal rule's search agrees with brute force on every small grid."""

from __future__ import annotations

import zlib

from hypothesis import given, settings
from hypothesis import strategies as st
from kits.takefour import best_crossword_brute, lexicon

from parlor.rules.takefour.crossword import Cell, is_crossword
from parlor.rules.takefour.removal import MAX_SEARCH_CELLS, NODE_BUDGET, best_crossword

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


# --- the search budget (issue 15, class 4) -----------------------------------------------


def big_grid(side: int) -> tuple[dict[Cell, str], dict[Cell, int]]:
    """A full square of letters: the search's worst case, far past any budget."""
    cells = [(x, y) for y in range(side) for x in range(side)]
    letters = {c: "ABCDE"[(c[0] * 7 + c[1] * 3) % 5] for c in cells}
    return letters, {c: 1 + (c[0] + c[1]) % 3 for c in cells}


def test_a_spent_budget_keeps_the_best_found_so_far_the_same_every_time() -> None:
    letters, values = big_grid(12)
    small = best_crossword(letters, values, crc_word, budget=100_000)
    assert best_crossword(letters, values, crc_word, budget=100_000) == small  # a pure function
    assert is_crossword({c: letters[c] for c in small.kept}, crc_word)
    # A bigger budget never does worse: it searches the same branches first, then more.
    more = best_crossword(letters, values, crc_word, budget=1_000_000)
    assert more.key(values) <= small.key(values)


def test_with_no_budget_the_best_lone_tile_stands() -> None:
    letters = {(0, 0): "C", (1, 0): "A", (2, 0): "T", (0, 1): "X"}
    values = {(0, 0): 1, (1, 0): 5, (2, 0): 1, (0, 1): 2}
    found = best_crossword(letters, values, lexicon("CAT"), budget=0)
    assert found.kept == frozenset({(1, 0)})
    exact = best_crossword(letters, values, lexicon("CAT"))
    assert exact.kept == frozenset({(0, 0), (1, 0), (2, 0)})


def test_the_default_budget_bounds_the_search_of_a_big_grid() -> None:
    letters, values = big_grid(20)  # 400 tiles, the largest structure searched
    assert len(letters) == MAX_SEARCH_CELLS
    calls = 0

    def counted(word: str) -> bool:
        nonlocal calls
        calls += 1
        return crc_word(word)

    found = best_crossword(letters, values, counted, budget=NODE_BUDGET)
    assert is_crossword({c: letters[c] for c in found.kept}, crc_word)
    assert found == best_crossword(letters, values, crc_word)
    # Lookups are bounded by the runs' pieces (preparation), not by the branches searched.
    assert calls <= 2 * 20 * 20 * 20


def test_a_structure_too_big_to_search_is_kept_whole_or_not_at_all() -> None:
    letters, values = big_grid(30)  # 900 tiles: more than the search recurses through
    everything = best_crossword(letters, values, lambda word: True)
    assert everything.kept == frozenset(letters)
    assert everything.removed == ()
    found = best_crossword(letters, values, crc_word)
    assert found == best_crossword(letters, values, crc_word)
    assert len(found.kept) == 1  # not a crossword whole: the best lone tile stands
    assert max(values.values()) == values[next(iter(found.kept))]
