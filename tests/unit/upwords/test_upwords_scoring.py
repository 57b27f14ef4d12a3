"""Scoring: flat words 2 a tile (+2 with Qu), stacked words the sum of heights, +20 for seven."""

from __future__ import annotations

from upwords_testkit import board, play, state

from parlor.rules.upwords import QU, check_play, validate_play
from parlor.rules.upwords.moves import Placement


def test_a_flat_word_scores_two_per_tile() -> None:
    s = state(racks=("CATXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, "5E CAT").placements).score == 6


def test_a_flat_word_with_qu_scored_plus_two() -> None:
    s = state(racks=([QU, "I", "T", "X", "X", "X", "X"], "ABCDEFG"))
    check = validate_play(s, 0, play(0, "5E QUIT").placements)
    assert check.score == 3 * 2 + 2


def test_the_qu_bonus_goes_to_each_flat_word_with_the_qu() -> None:
    b = board("5F IT", "6E A")
    check = check_play(b, [QU], [Placement(4, 4, QU)])
    assert check.texts == ("quit", "qua")
    assert [w.score for w in check.words] == [3 * 2 + 2, 2 * 2 + 2]


def test_a_stacked_word_scored_as_the_sum_of_heights() -> None:
    b = board("5E CAT", stacks={(4, 4): ["B", "A", "C"]})
    check = check_play(b, ["O"], [Placement(4, 5, "O")])
    assert check.texts == ("cot",)
    assert check.score == 3 + 2 + 1


def test_a_stacked_word_has_no_qu_bonus() -> None:
    b = board("5E CAT", stacks={(4, 4): [QU]})
    check = check_play(b, ["O"], [Placement(4, 5, "O")])
    assert check.texts == ("quot",)
    assert check.score == 1 + 2 + 1


def test_a_stack_used_in_two_words_scores_in_each() -> None:
    b = board("5E CAT", "F5 (A)N")
    check = check_play(b, ["O"], [Placement(4, 5, "O")])
    assert check.texts == ("cot", "on")
    assert check.score == (1 + 2 + 1) + (2 + 1)


def test_the_seven_tile_bonus() -> None:
    s = state(racks=("RETAINS", "ABCDEFG"))
    check = validate_play(s, 0, play(0, "5B RETAINS").placements)
    assert check.bonus == 20
    assert check.score == 7 * 2 + 20


def test_no_seven_tile_bonus_for_six_tiles() -> None:
    s = state(racks=("RETAINS", "ABCDEFG"))
    check = validate_play(s, 0, play(0, "5B RETAIN").placements)
    assert check.bonus == 0
    assert check.score == 12


def test_no_seven_tile_bonus_for_emptying_a_short_rack() -> None:
    s = state(racks=("CAT", "ABCDEFG"), bag="")
    check = validate_play(s, 0, play(0, "5E CAT").placements)
    assert check.bonus == 0
