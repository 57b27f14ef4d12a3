"""Move notation (GCG-like), the game record export, and the text render."""

from __future__ import annotations

import pytest
from upwords_testkit import board, play, run, state

from parlor.core.errors import InvalidArgument
from parlor.rules.upwords import (
    QU,
    UPWORDS,
    Challenge,
    CreateGame,
    Exchange,
    Pass,
    Placement,
    UpwordsConfig,
    WordChecking,
)
from parlor.rules.upwords.notation import (
    NotatedExchange,
    NotatedPass,
    format_play,
    parse_coordinate,
    parse_move,
    parse_play,
    play_of,
)
from parlor.rules.upwords.record import export_game
from parlor.rules.upwords.render import render


def test_coordinates_row_first_across_column_first_down() -> None:
    assert parse_coordinate("5E") == (4, 4, (0, 1))
    assert parse_coordinate("E5") == (4, 4, (1, 0))
    assert parse_coordinate("10J") == (9, 9, (0, 1))


def test_parse_a_play_keeping_letters_in_parentheses() -> None:
    assert parse_play("5E W(O)R(D)") == (Placement(4, 4, "W"), Placement(4, 6, "R"))


def test_qu_is_one_square_in_notation() -> None:
    assert parse_play("E5 QUIT") == (
        Placement(4, 4, QU),
        Placement(5, 4, "I"),
        Placement(6, 4, "T"),
    )


def test_pass_and_exchange_notation() -> None:
    assert parse_move("-") == NotatedPass()
    assert parse_move("-qu") == NotatedExchange(QU)


@pytest.mark.parametrize("text", ["11A CAT", "5E", "5E C(AT", "5E QAT", "5J CAT", "-AB"])
def test_bad_notation_is_malformed(text: str) -> None:
    with pytest.raises(InvalidArgument):
        parse_move(text)


def test_format_play_round_trips() -> None:
    b = board("5E CAT", "F5 (A)N")
    for text in ("5E (C)O(T)S", "F4 S(A)(N)", "5D S(C)O(T)", "F4 T(AN)"):
        placements = parse_play(text)
        again = format_play(b, placements)
        assert parse_play(again) == placements
    assert format_play(b, parse_play("5H S")) == "5E (CAT)S"
    assert format_play(b, parse_play("4F T")) == "F4 T(AN)"


def test_export_of_a_finished_game() -> None:
    _, events = run(UPWORDS.initial_state(), _create(), *_commands())
    text = export_game(events)
    lines = text.splitlines()
    assert lines[0] == "#game upwords"
    assert "#word-checking challenge" in lines
    assert any(line.startswith("#first-draw ") for line in lines)
    turns = [line for line in lines if line.startswith(">")]
    assert turns[0].split()[2:] == ["5E", "CAT", "+6", "6"]
    assert turns[1].split()[2:] == ["-", "+0", "0"]
    assert "#challenge p1 lost" in lines
    assert lines[-1].startswith("#end ALL_PASSED winners p0")


def _create() -> CreateGame:
    order = ("A", "B", *_rest(("A", "B")))
    bag = ("C", "A", "T", "S", "X", "Y", "Z", "O", "E", "E", "D", "G", "M", "H")
    return CreateGame(
        UpwordsConfig(word_checking=WordChecking.CHALLENGE, lexicon="enable1"),
        ("p0", "p1"),
        order,
        (*bag, *_rest(bag)),
    )


def _rest(front: tuple[str, ...]) -> list[str]:
    from parlor.rules.upwords import full_bag

    rest = list(full_bag())
    for tile in front:
        rest.remove(tile)
    return rest


def _commands() -> list[object]:
    return [
        play(0, "5E CAT"),
        Challenge(1, {"cat": True}),
        Pass(1),
        Exchange(0, "Z", 3),
        Pass(1),
        Pass(0),
    ]


def test_render_shows_letters_with_stack_heights_and_hides_other_racks() -> None:
    s = state(board("5E CAT", stacks={(4, 5): ["A", "O"]}), racks=("ABCDEFG", "HIJKLMN"))
    text = render(s, 0)
    assert " C1  O2  T1" in text
    assert "A B C D E F G" in text
    assert "H I J" not in text
    assert "7 tiles" in text


@pytest.mark.parametrize("text", ["11A CAT", "A11 CAT", "0C CAT", "K5 CAT", "5K CAT"])
def test_a_square_past_the_edge_is_off_board_not_bad_notation(text: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_move(text)
    assert caught.value.reason == "OFF_BOARD"
    assert "off the board" in caught.value.message


@pytest.mark.parametrize("text", ["5J CAT", "J9 CAT"])
def test_a_word_running_past_the_edge_is_off_board(text: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_move(text)
    assert caught.value.reason == "OFF_BOARD"


@pytest.mark.parametrize("text", ["Z99 WORD", "55 CAT", "5E5 CAT"])
def test_what_is_no_coordinate_at_all_is_bad_notation(text: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_move(text)
    assert caught.value.reason == "INVALID_NOTATION"
    assert caught.value.metadata == {"deprecated_reason": "BAD_NOTATION"}


def test_a_play_of_tiles_placed_one_by_one_keeps_nothing_and_names_qu_as_the_engine() -> None:
    play = play_of([(4, 4, "qu"), (4, 5, "i")], "")
    assert play.placements == (Placement(4, 4, QU), Placement(4, 5, "I"))
    assert play.kept == ()


def test_a_play_in_notation_gives_its_placements_and_the_tiles_it_keeps() -> None:
    play = play_of([], "5E W(O)R(D)")
    assert play.placements == (Placement(4, 4, "W"), Placement(4, 6, "R"))
    assert play.kept == ((4, 5, "O"), (4, 7, "D"))


@pytest.mark.parametrize(
    ("placed", "move", "reason"),
    [
        ([(4, 4, "A")], "5E A", "PLAY_GIVEN_TWICE"),
        ([], "", "NO_TILES"),
        ([], "   ", "NO_TILES"),
        ([], "-", "INVALID_NOTATION"),
        ([], "-A", "INVALID_NOTATION"),
    ],
)
def test_a_play_given_twice_not_at_all_or_as_a_pass_or_exchange_is_refused(
    placed: list[tuple[int, int, str]], move: str, reason: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        play_of(placed, move)
    assert caught.value.reason == reason
