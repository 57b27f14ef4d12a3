"""The words an Upwords command needs the dictionary's verdicts on, and their attaching."""

from __future__ import annotations

from upwords_testkit import board, play, run, state

from parlor.rules.upwords import Challenge, Pass, Play
from parlor.rules.upwords.config import UpwordsConfig, WordChecking
from parlor.rules.upwords.verdicts import attach_verdicts, words_to_check

CHALLENGE = UpwordsConfig(word_checking=WordChecking.CHALLENGE)


def test_a_play_in_auto_mode_needs_its_words_and_carries_their_verdicts() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"))
    cot = play(0, "5E (C)O(T)")
    assert words_to_check(s, cot) == ["cot"]
    assert attach_verdicts(s, cot, {"cot": True}) == Play(0, cot.placements, {"cot": True})
    assert words_to_check(s, Pass(0)) == ()
    assert attach_verdicts(s, Pass(0), {"cot": True}) == Pass(0)


def test_in_challenge_mode_only_a_challenge_of_another_seats_play_needs_words() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=CHALLENGE)
    assert words_to_check(s, play(0, "5E (C)O(T)")) == ()
    assert words_to_check(s, Challenge(1, {})) == ()  # nothing pending
    s, _ = run(s, play(0, "5E (C)O(T)"))
    assert words_to_check(s, Challenge(1, {})) == ("cot",)
    assert words_to_check(s, Challenge(0, {})) == ()  # one's own play
    assert attach_verdicts(s, Challenge(1, {}), {"cot": False}) == Challenge(1, {"cot": False})
