"""What a crossword is (RULES.md, Take Four): non-empty, connected, every run a word."""

from __future__ import annotations

from kits.takefour import lexicon

from parlor.rules.takefour.crossword import is_crossword, run_words, sub_run_words

WORDS = lexicon("CAT", "AT", "TA", "ACT")


def test_disconnected_grid_is_not_a_crossword() -> None:
    grid = {(0, 0): "C", (1, 0): "A", (2, 0): "T", (5, 5): "A", (6, 5): "T"}
    assert not is_crossword(grid, WORDS)
    assert is_crossword({c: letter for c, letter in grid.items() if c[1] == 0}, WORDS)


def test_single_tile_is_a_valid_crossword() -> None:
    assert is_crossword({(3, -7): "Q"}, WORDS)


def test_empty_grid_is_not_a_crossword() -> None:
    assert not is_crossword({}, WORDS)


def test_every_run_across_and_down_must_be_a_word() -> None:
    # C A T across; A under C makes "CA" down, which is not a word.
    grid = {(0, 0): "C", (1, 0): "A", (2, 0): "T", (0, 1): "A"}
    assert run_words(grid) == ["CAT", "CA"]
    assert not is_crossword(grid, WORDS)
    # T A down from T of CAT (read top to bottom), A under T: "TA" is a word.
    grid = {(0, 0): "C", (1, 0): "A", (2, 0): "T", (2, 1): "A"}
    assert is_crossword(grid, WORDS)


def test_down_words_read_top_to_bottom() -> None:
    grid = {(0, 2): "T", (0, 1): "A", (0, 0): "C"}
    assert run_words(grid) == ["CAT"]


def test_sub_runs_list_every_piece_removal_could_leave() -> None:
    assert sub_run_words({(0, 0): "C", (1, 0): "A", (2, 0): "T"}) == {"CA", "AT", "CAT"}
