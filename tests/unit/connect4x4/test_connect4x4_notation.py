"""Move notation: <column a-g><side f|b>, or <column>x for a blocker."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlor.core.errors import InvalidArgument
from parlor.rules.connect4x4 import (
    DropBlocker,
    DropChecker,
    Move,
    Side,
    format_move,
    parse_move,
)

seats = st.integers(min_value=0, max_value=3)
columns = st.integers(min_value=0, max_value=6)
moves: st.SearchStrategy[Move] = st.one_of(
    st.builds(DropChecker, seat=seats, column=columns, side=st.sampled_from(Side)),
    st.builds(DropBlocker, seat=seats, column=columns),
)
written = st.builds(
    lambda column, kind: column + kind, st.sampled_from("abcdefg"), st.sampled_from("fbx")
)


def test_notation_examples_of_the_rules() -> None:
    assert parse_move("df", 0) == DropChecker(0, 3, Side.FRONT)
    assert parse_move("gb", 1) == DropChecker(1, 6, Side.BACK)
    assert parse_move("cx", 2) == DropBlocker(2, 2)
    assert parse_move("af", 0) == DropChecker(0, 0, Side.FRONT)


def test_notation_ignores_case_and_surrounding_spaces() -> None:
    assert parse_move(" DF ", 0) == DropChecker(0, 3, Side.FRONT)


@given(moves)
def test_notation_round_trip_from_moves(move: Move) -> None:
    assert parse_move(format_move(move), move.seat) == move


@given(written, seats)
def test_notation_round_trip_from_text(text: str, seat: int) -> None:
    assert format_move(parse_move(text, seat)) == text


@pytest.mark.parametrize("text", ["", "d", "hf", "dz", "dff", "4f", "fd", "x", "d f"])
def test_invalid_notation_is_invalid_argument(text: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        parse_move(text, 0)
    assert refused.value.reason == "INVALID_NOTATION"


@given(st.text(max_size=4))
def test_any_text_parses_or_is_invalid_argument(text: str) -> None:
    try:
        move = parse_move(text, 0)
    except InvalidArgument:
        return
    assert format_move(move) == text.strip().lower()
