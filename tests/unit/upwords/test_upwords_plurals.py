"""The plural rule: no simply adding an S to the end of a word (configurable, on by default)."""

from __future__ import annotations

import pytest
from upwords_testkit import board, play, state

from parlor.core.errors import RuleViolation
from parlor.rules.upwords import UpwordsConfig, validate_play


def test_plural_s_alone_at_the_end_of_a_word_refused() -> None:
    s = state(board("5E CAT"), racks=("SXXXXXX", "ABCDEFG"))
    with pytest.raises(RuleViolation) as caught:
        validate_play(s, 0, play(0, "5E (CAT)S").placements)
    assert caught.value.rule == "PLURAL_S"


def test_plural_s_down_at_the_end_of_a_word_refused() -> None:
    s = state(board("E4 CAT"), racks=("SXXXXXX", "ABCDEFG"))
    with pytest.raises(RuleViolation) as caught:
        validate_play(s, 0, play(0, "E4 (CAT)S").placements)
    assert caught.value.rule == "PLURAL_S"


def test_plural_s_forming_a_cross_word_allowed() -> None:
    # CAT across row 5; O at 4H above the S square: the S also makes OS down.
    s = state(board("5E CAT", stacks={(3, 7): ["O"]}), racks=("SXXXXXX", "ABCDEFG"))
    check = validate_play(s, 0, play(0, "5E (CAT)S").placements)
    assert sorted(check.texts) == ["cats", "os"]


def test_plural_s_in_a_longer_play_allowed() -> None:
    s = state(board("5E CAT"), racks=("SOXXXXX", "ABCDEFG"))
    check = validate_play(s, 0, play(0, "H5 SO").placements)
    assert sorted(check.texts) == ["cats", "so"]


def test_plural_s_stacked_on_the_last_letter_allowed() -> None:
    s = state(board("5E CAT"), racks=("SXXXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, "5E (CA)S").placements).texts == ("cas",)


def test_s_at_the_front_of_a_word_allowed() -> None:
    s = state(board("5E HOT"), racks=("SXXXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, "5D S(HOT)").placements).texts == ("shot",)


def test_s_after_a_single_letter_allowed() -> None:
    # The A of AT down stands alone across: AS is not a plural of a 2+ letter word.
    s = state(board("E5 AT"), racks=("SXXXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, "5E (A)S").placements).texts == ("as",)


def test_plural_rule_can_be_switched_off() -> None:
    s = state(
        board("5E CAT"), racks=("SXXXXXX", "ABCDEFG"), config=UpwordsConfig(plural_rule=False)
    )
    assert validate_play(s, 0, play(0, "5E (CAT)S").placements).texts == ("cats",)
