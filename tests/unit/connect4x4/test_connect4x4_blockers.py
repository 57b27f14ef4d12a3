"""Blockers: two layers thick, they stop at the higher channel and leave dead cells beneath."""

import pytest

from parlor.core.errors import RuleViolation
from parlor.rules.connect4x4 import (
    BlockerDropped,
    Cell,
    CheckerDropped,
    Content,
    DropBlocker,
    DropChecker,
    Side,
    decide,
    legal_moves,
    play,
    view,
)
from parlor.rules.connect4x4.board import bit


def test_blocker_fills_both_sides_at_the_higher_channel() -> None:
    # Red a0 and a1 on the back; Yellow's blocker stops at row 2 on both sides.
    state, events = play("ab gf ab ax")
    assert events[-1] == BlockerDropped(1, 0, 2, (Cell(0, 0, Side.FRONT), Cell(0, 1, Side.FRONT)))
    assert state.blockers[1] == bit(0, 2)
    assert state.height(0, Side.FRONT) == state.height(0, Side.BACK) == 3


def test_blocker_over_even_channels_leaves_no_dead_cell() -> None:
    _, events = play("af ab bx")
    assert events[-1] == BlockerDropped(0, 1, 0, ())


def test_blocker_over_uneven_channels_leaves_a_dead_cell_no_checker_can_fill() -> None:
    state, _ = play("ab gf ab ax")
    # Fill what is left of column a's front channel: checkers land above the blocker.
    state, events = play("ab gf ab ax af bf af bf af")
    rows = [e.row for e in events if isinstance(e, CheckerDropped) and e.column == 0]
    assert rows == [0, 1, 3, 4, 5]  # the two back checkers, then three front ones above
    assert state.dead_front == bit(0, 0) | bit(0, 1)
    for seat in range(2):
        assert state.front[seat] & state.dead_front == 0
    assert view(state).front[0][0].content is Content.DEAD
    assert view(state).front[0][1].content is Content.DEAD
    assert DropChecker(state.turn, 0, Side.FRONT) not in legal_moves(state)
    with pytest.raises(RuleViolation) as refused:
        decide(state, DropChecker(state.turn, 0, Side.FRONT))
    assert refused.value.rule == "COLUMN_FULL"


def test_dead_cell_counts_toward_height() -> None:
    state, events = play("ab gf ab ax af")
    assert state.height(0, Side.FRONT) == 4
    assert events[-1] == CheckerDropped(0, 0, Side.FRONT, 3)


def test_blockers_may_leave_dead_cells_on_both_sides_in_turn() -> None:
    # The front is higher here: the dead cells are on the back.
    _, events = play("cf cf cf cx")
    assert events[-1] == BlockerDropped(
        1, 2, 3, (Cell(2, 0, Side.BACK), Cell(2, 1, Side.BACK), Cell(2, 2, Side.BACK))
    )


def test_blocker_refused_when_either_side_full() -> None:
    front_full, _ = play("af af af af af af")
    with pytest.raises(RuleViolation) as refused:
        decide(front_full, DropBlocker(0, 0))
    assert refused.value.rule == "BLOCKER_ROW_OFF_BOARD"
    assert DropBlocker(0, 0) not in legal_moves(front_full)
    back_full, _ = play("ab ab ab ab ab ab")
    with pytest.raises(RuleViolation) as refused:
        decide(back_full, DropBlocker(0, 0))
    assert refused.value.rule == "BLOCKER_ROW_OFF_BOARD"


def test_blocker_legal_on_the_top_row() -> None:
    _state, events = play("af af af af af bx ax")
    assert isinstance(events[-1], BlockerDropped)
    assert events[-1].row == 5
    assert events[-1].dead == tuple(Cell(0, r, Side.BACK) for r in range(5))


def test_no_blockers_left_refuses_a_third_blocker() -> None:
    state, _ = play("ax gx bx gb")
    assert state.blockers_left[0] == 0
    with pytest.raises(RuleViolation) as refused:
        decide(state, DropBlocker(0, 3))
    assert refused.value.rule == "NO_BLOCKERS_LEFT"
    assert not any(isinstance(m, DropBlocker) for m in legal_moves(state))
