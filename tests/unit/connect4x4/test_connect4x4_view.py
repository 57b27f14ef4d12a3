"""The view and the text picture: nothing is hidden in Connect 4x4, but views are still frozen."""

import dataclasses

import pytest

from parlor.rules.connect4x4 import (
    Config,
    Content,
    Hole,
    Status,
    initial_state,
    play,
    render,
    view,
)


def test_view_is_the_same_for_every_viewer_and_frozen() -> None:
    state, _ = play("df ax gb")
    seen = view(state, 0)
    assert dataclasses.replace(seen, viewer=1) == view(state, 1)
    assert dataclasses.replace(seen, viewer=None) == view(state, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen.turn = 0  # type: ignore[misc]


def test_view_shows_checkers_blockers_and_dead_cells_on_each_side() -> None:
    # Red d0 back; Yellow blocker a0; Red blocker d1 over a dead d0 front.
    state, _ = play("db ax dx")
    seen = view(state)
    assert seen.back[3][0] == Hole(Content.CHECKER, 0)
    assert seen.front[3][0] == Hole(Content.DEAD)
    assert seen.front[3][1] == seen.back[3][1] == Hole(Content.BLOCKER, 0)
    assert seen.front[0][0] == seen.back[0][0] == Hole(Content.BLOCKER, 1)
    assert seen.front[6][5] == Hole(Content.EMPTY)
    assert seen.turn == 1
    assert seen.blockers_left == (1, 1)
    assert "ab" in seen.legal_moves
    assert "dx" in seen.legal_moves


def test_view_of_a_finished_game_has_no_turn_and_no_moves() -> None:
    state, _ = play("af gf bb gb cf gf db")
    seen = view(state)
    assert seen.status is Status.WON
    assert seen.turn is None
    assert seen.legal_moves == ()
    assert seen.winner == 0
    assert len(seen.line) == 4


def test_render_draws_both_sides_with_column_letters() -> None:
    state, _ = play("db ax dx", Config(players=3))
    text = render(state)
    rows = text.splitlines()
    assert "front" in rows[0]
    assert "back" in rows[0]
    bottom = rows[6]
    assert bottom.startswith("0 |# . . ~ . . .|")
    assert bottom.endswith("|# . . R . . .|")
    assert rows[7].count("a b c d e f g") == 2
    assert "R seat 0 to play" in text  # Green dropped the blocker in d


def test_render_names_the_winner_and_the_line() -> None:
    state, _ = play("af gf bb gb cf gf db")
    assert "R seat 0 wins with a0 b0 c0 d0" in render(state)


def test_render_before_creation() -> None:
    assert "not created" in render(initial_state())
