"""Take Four notation is the rules' own: engine events, with the seat lines and finish given."""

from __future__ import annotations

from parlor.rules import takefour as tf
from parlor.rules.takefour.notation import export


def test_the_seats_head_the_record_and_the_finish_ends_it() -> None:
    config = tf.TakeFourConfig(lexicon="enable1-x")
    events = [
        tf.GameCreated(config, ("ada", "bob")),
        tf.RoundStarted(1, (3, 1, 2)),
        tf.TakeFourCalled(1),
    ]
    seats = ['[Seat0 "Ada"]', '[Seat0Id "ada"]', '[Seat1 "Bob"]', '[Seat1Id "bob"]']
    text = export("g1", "", events, seats, ("TARGET_SCORE", [2, 1]))
    lines = text.splitlines()
    assert lines[:6] == ['[Game "takefour"]', '[GameId "g1"]', *seats]
    assert '[Lexicon "enable1-x"]' in lines
    assert lines[-3:] == ["R1 bag 3,1,2", "s1 takefour", "finished TARGET_SCORE ranks 2,1"]


def test_a_record_without_seats_or_finish_has_neither() -> None:
    text = export("g2", "lex", [tf.TakeFourCalled(0)])
    assert text == '[Game "takefour"]\n[GameId "g2"]\ns0 takefour\n'
