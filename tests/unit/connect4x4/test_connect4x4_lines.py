"""Winning lines: four positions in a row of the front view, each holding the mover's checker."""

from dataclasses import replace

import pytest

from parlor.core.errors import RuleViolation
from parlor.rules.connect4x4 import (
    CheckerDropped,
    Config,
    DropChecker,
    GameWon,
    Position,
    Side,
    Status,
    decide,
    is_terminal,
    play,
    result,
)
from parlor.rules.connect4x4.board import bit


def _line(*cells: tuple[int, int]) -> tuple[Position, ...]:
    return tuple(Position(column, row) for column, row in cells)


def test_weaving_horizontal_line_wins() -> None:
    # Red: a0 front, b0 back, c0 front, d0 back.
    state, events = play("af gf bb gb cf gf db")
    assert events[-1] == GameWon(0, _line((0, 0), (1, 0), (2, 0), (3, 0)))
    assert state.status is Status.WON
    assert state.winner == 0


def test_weaving_vertical_line_wins() -> None:
    # Red: a0 both sides, a1 back (Yellow holds a1 front), a2 and a3 front.
    state, events = play("af af ab gf ab gb af eb af")
    assert events[-1] == GameWon(0, _line((0, 0), (0, 1), (0, 2), (0, 3)))
    assert state.winner == 0


def test_weaving_diagonal_line_wins() -> None:
    # Red: a0 front, b1 front, c2 back, d3 back.
    state, events = play("af bf bf cb gf cb cb db gb db gf db db")
    assert events[-1] == GameWon(0, _line((0, 0), (1, 1), (2, 2), (3, 3)))
    assert state.winner == 0


def test_weaving_anti_diagonal_line_wins() -> None:
    # Red: d0 back, c1 front, b2 back, a3 front.
    _state, events = play("db cf cf bb gf bb bb af gb af ef af af")
    assert events[-1] == GameWon(0, _line((0, 3), (1, 2), (2, 1), (3, 0)))


def test_line_entirely_on_one_side_wins() -> None:
    _state, events = play("ab af bb bf cb gf db")
    assert events[-1] == GameWon(0, _line((0, 0), (1, 0), (2, 0), (3, 0)))


def test_opponent_piece_on_other_side_does_not_break_a_line() -> None:
    # Yellow holds a0, b0 and c0 on the front; Red's back-side line through them still wins.
    state, _ = play("ab af bb bf cb cf db")
    assert state.winner == 0


def test_line_broken_by_a_blocker_does_not_win() -> None:
    # Red holds a0, b0, d0, e0; Yellow's blocker sits at c0 on both sides.
    state, events = play("af cx bf gb df gb ef")
    assert state.status is Status.IN_PROGRESS
    assert not any(isinstance(event, GameWon) for event in events)


def test_own_blocker_never_counts_toward_a_line_by_default() -> None:
    state, _events = play("af gb bf fb df gb cx")
    assert state.status is Status.IN_PROGRESS
    assert result(state) is None


def test_blockers_count_toward_lines_when_configured() -> None:
    _state, events = play("af gb bf fb df gb cx", Config(blockers_count_toward_lines=True))
    assert events[-1] == GameWon(0, _line((0, 0), (1, 0), (2, 0), (3, 0)))


def test_three_in_a_line_does_not_win() -> None:
    state, _ = play("af gf bb gb cf")
    assert state.status is Status.IN_PROGRESS


def test_first_line_wins_at_once() -> None:
    state, events = play("af gf bb gb cf gf db")
    assert isinstance(events[-2], CheckerDropped)
    assert isinstance(events[-1], GameWon)
    assert is_terminal(state)
    with pytest.raises(RuleViolation) as refused:
        decide(state, DropChecker(1, 4, Side.FRONT))
    assert refused.value.rule == "GAME_OVER"


def test_only_the_movers_lines_are_checked() -> None:
    # Yellow is given a line it never made; Red's move completes nothing for Red, so no one wins.
    state, _ = play("af gb")
    planted = sum(bit(column, 5) for column in range(4))
    state = replace(state, back=(state.back[0], state.back[1] | planted))
    events = decide(state, DropChecker(0, 6, Side.FRONT))
    assert not any(isinstance(event, GameWon) for event in events)
