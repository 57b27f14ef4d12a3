"""Checkers: they fall to the lowest free cell of the channel they are dropped in."""

from dataclasses import replace

import pytest

from parlor.core.errors import RuleViolation
from parlor.rules.connect4x4 import (
    CHECKERS_PER_PLAYER,
    CheckerDropped,
    Config,
    DropChecker,
    Side,
    decide,
    legal_moves,
    play,
)
from parlor.rules.connect4x4.board import bit


def test_checker_falls_to_the_lowest_free_cell_of_its_channel() -> None:
    state, events = play("df db df")
    assert events[1:] == [
        CheckerDropped(0, 3, Side.FRONT, 0),
        CheckerDropped(1, 3, Side.BACK, 0),
        CheckerDropped(0, 3, Side.FRONT, 1),
    ]
    assert state.front[0] == bit(3, 0) | bit(3, 1)
    assert state.back[1] == bit(3, 0)


def test_back_cell_sits_directly_behind_the_front_cell() -> None:
    # Column g on the back is behind column g on the front (no mirroring).
    state, _ = play("gb")
    assert state.back[0] == bit(6, 0)
    assert state.height(6, Side.BACK) == 1
    assert state.height(0, Side.BACK) == 0


def test_full_column_refuses_a_checker() -> None:
    state, _ = play("af af af af af af")
    with pytest.raises(RuleViolation) as refused:
        decide(state, DropChecker(0, 0, Side.FRONT))
    assert refused.value.rule == "COLUMN_FULL"
    # The back channel of the same column is still open.
    assert DropChecker(0, 0, Side.BACK) in legal_moves(state)
    assert DropChecker(0, 0, Side.FRONT) not in legal_moves(state)


def test_each_player_has_seventeen_checkers_and_two_blockers() -> None:
    for players in (2, 3, 4):
        state, _ = play("", Config(players=players))
        assert state.checkers_left == (CHECKERS_PER_PLAYER,) * players == (17,) * players
        assert state.blockers_left == (2,) * players


def test_no_checkers_left_refuses_a_checker() -> None:
    state, _ = play("af")
    state = replace(state, checkers_left=(16, 0))
    with pytest.raises(RuleViolation) as refused:
        decide(state, DropChecker(1, 2, Side.FRONT))
    assert refused.value.rule == "NO_CHECKERS_LEFT"
    assert not any(isinstance(m, DropChecker) for m in legal_moves(state))
