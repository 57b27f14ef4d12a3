"""Where tiles may go: one line, no gaps, the first play, connection, stacking limits."""

from __future__ import annotations

import pytest
from upwords_testkit import board, play, state

from parlor.core.errors import InvalidArgument, PermissionDenied, RuleViolation
from parlor.rules.upwords import QU, check_play, validate_play
from parlor.rules.upwords.moves import Placement


def refused(s: object, text: str, seat: int = 0) -> str:
    with pytest.raises(RuleViolation) as caught:
        validate_play(s, seat, play(seat, text).placements)  # type: ignore[arg-type]
    return caught.value.rule


def test_stacking_on_the_same_letter_refused() -> None:
    s = state(board("5E WORD"), racks=("OXXXXXX", "ABCDEFG"))
    assert refused(s, "5F O") == "SAME_LETTER_ON_STACK"


def test_qu_on_qu_refused() -> None:
    b = board(stacks={(4, 4): [QU], (4, 5): ["I"]})
    with pytest.raises(RuleViolation) as caught:
        check_play(b, [QU, "A"], [Placement(4, 4, QU)])
    assert caught.value.rule == "SAME_LETTER_ON_STACK"


def test_same_letter_compares_with_the_top_tile() -> None:
    # An O buried under the R does not stop another O going on top of the R.
    b = board("5E WORD", stacks={(4, 6): ["O", "R"]})
    check_play(b, ["O"], [Placement(4, 6, "O")])


def test_stack_height_six_refused() -> None:
    b = board("5E AT", stacks={(4, 4): ["B", "C", "D", "E", "A"]})
    with pytest.raises(RuleViolation) as caught:
        check_play(b, ["O"], [Placement(4, 4, "O")])
    assert caught.value.rule == "STACK_TOO_HIGH"


def test_stack_height_five_allowed() -> None:
    b = board("5E AT", stacks={(4, 4): ["B", "C", "D", "A"]})
    check_play(b, ["O"], [Placement(4, 4, "O")])


def test_one_tile_per_stack_per_turn() -> None:
    with pytest.raises(RuleViolation) as caught:
        check_play(board("5E AT"), ["O", "I"], [Placement(4, 4, "O"), Placement(4, 4, "I")])
    assert caught.value.rule == "ONE_TILE_PER_STACK"


def test_covering_a_whole_word_refused() -> None:
    s = state(board("5E AT"), racks=("ONXXXXX", "ABCDEFG"))
    assert refused(s, "5E ON") == "COVERS_WHOLE_WORD"


def test_covering_a_whole_word_refused_even_when_extending_it() -> None:
    s = state(board("5E AT"), racks=("ONEXXXX", "ABCDEFG"))
    assert refused(s, "5E ONE") == "COVERS_WHOLE_WORD"


def test_covering_all_but_one_letter_allowed() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"))
    validate_play(s, 0, play(0, "5E (C)O(T)").placements)


def test_a_gap_in_the_line_refused() -> None:
    s = state(board("5E CAT"), racks=("SOXXXXX", "ABCDEFG"))
    # S below C (6E), O two squares further (6G) with 6F empty.
    with pytest.raises(RuleViolation) as caught:
        validate_play(s, 0, (Placement(5, 4, "S"), Placement(5, 6, "O")))
    assert caught.value.rule == "GAP_IN_LINE"


def test_a_line_through_board_tiles_has_no_gap() -> None:
    s = state(board("5E CAT"), racks=("OSXXXXX", "ABCDEFG"))
    validate_play(s, 0, play(0, "5D O(CAT)S").placements)


def test_tiles_not_in_one_line_refused() -> None:
    s = state(board("5E CAT"), racks=("OSXXXXX", "ABCDEFG"))
    with pytest.raises(RuleViolation) as caught:
        validate_play(s, 0, (Placement(3, 4, "O"), Placement(5, 5, "S")))
    assert caught.value.rule == "NOT_IN_ONE_LINE"


def test_the_first_play_off_centre_refused() -> None:
    s = state(racks=("CATXXXX", "ABCDEFG"))
    assert refused(s, "1A CAT") == "FIRST_PLAY_OFF_CENTRE"


def test_the_first_play_on_a_centre_square_allowed() -> None:
    s = state(racks=("CATXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, "6D CAT").placements).texts == ("cat",)


def test_the_first_play_needs_two_letters() -> None:
    s = state(racks=("AXXXXXX", "ABCDEFG"))
    assert refused(s, "5E A") == "FIRST_PLAY_TOO_SHORT"


def test_later_plays_must_connect() -> None:
    s = state(board("5E CAT"), racks=("ATXXXXX", "ABCDEFG"))
    assert refused(s, "1A AT") == "NOT_CONNECTED"


def test_stacking_alone_connects() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, "5E (C)O(T)").placements).texts == ("cot",)


def test_tiles_must_come_from_the_rack() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"))
    assert refused(s, "6E AX") == "TILES_NOT_ON_RACK"


def test_play_out_of_turn_refused() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "OBCDEFG"), to_move=0)
    with pytest.raises(PermissionDenied):
        validate_play(s, 1, play(1, "5E (C)O(T)").placements)


def test_play_off_the_board_is_malformed() -> None:
    with pytest.raises(InvalidArgument):
        check_play(board("5E CAT"), ["O"], [Placement(10, 0, "O")])


def test_every_word_formed_or_changed_is_listed() -> None:
    # CAT across row 5 with AN down from its A; an O on the A and an S after: COTS and ON.
    s = state(board("5E CAT", "F5 (A)N"), racks=("OSXXXXX", "ABCDEFG"))
    texts = validate_play(s, 0, play(0, "5E (C)O(T)S").placements).texts
    assert texts == ("cots", "on")


def test_words_read_qu_as_two_letters() -> None:
    s = state(racks=(["Qu", "I", "T", "X", "X", "X", "X"], "ABCDEFG"))
    assert validate_play(s, 0, play(0, "5E QUIT").placements).texts == ("quit",)


@pytest.mark.parametrize("square", ["5E", "5F", "6E", "6F"])
def test_the_first_play_may_cover_any_of_the_four_centre_squares(square: str) -> None:
    # RULES.md, Upwords, "Board": the centre squares are (4,4), (4,5), (5,4), (5,5).
    s = state(racks=("ATXXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, f"{square} AT").placements).texts == ("at",)


def test_a_lone_qu_is_not_a_two_letter_first_play() -> None:
    # RULES.md, Upwords, "Fine points": the Qu tile is one tile, so alone it is one letter.
    s = state(racks=([QU, "X", "X", "X", "X", "X", "X"], "ABCDEFG"))
    assert refused(s, "5E QU") == "FIRST_PLAY_TOO_SHORT"


def test_a_single_letter_is_never_checked() -> None:
    # A tile that spells a word down but stands alone across: only the word down is asked.
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"))
    assert validate_play(s, 0, play(0, "F6 O").placements).texts == ("ao",)
