"""Illegal input: each Upwords command the engine refuses names the rule it breaks.

The refusals the other files show by reason (placement, stacking, plurals, exchange,
words, time and resignation) are not repeated here.
"""

from __future__ import annotations

import pytest
from upwords_testkit import board, play, run, state

from parlor.core.errors import ParlorError
from parlor.rules.upwords import (
    UPWORDS,
    AcceptPlay,
    Challenge,
    Command,
    CreateGame,
    Exchange,
    Pass,
    Play,
    Resign,
    UpwordsConfig,
    UpwordsState,
    WordChecking,
    full_bag,
)
from parlor.rules.upwords.moves import Placement

CHALLENGE = UpwordsConfig(word_checking=WordChecking.CHALLENGE)


def reason(s: UpwordsState, command: object) -> str:
    with pytest.raises(ParlorError) as refused:
        UPWORDS.decide(s, command)  # type: ignore[arg-type]
    return refused.value.reason


def create(seats: int) -> CreateGame:
    return CreateGame(UpwordsConfig(), tuple(f"p{i}" for i in range(seats)), full_bag(), full_bag())


@pytest.mark.parametrize("seats", [1, 5])
def test_a_table_of_other_than_2_to_4_players_is_bad_seats(seats: int) -> None:
    assert reason(UPWORDS.initial_state(), create(seats)) == "BAD_SEATS"


def test_a_bag_order_that_is_not_the_hundred_tiles_is_bad_bag() -> None:
    bags = (full_bag()[1:], (*full_bag()[1:], "E"), ())
    for first, second in ((bag, full_bag()) for bag in bags):
        command = CreateGame(UpwordsConfig(), ("a", "b"), first, second)
        assert reason(UPWORDS.initial_state(), command) == "BAD_BAG"
        command = CreateGame(UpwordsConfig(), ("a", "b"), second, first)
        assert reason(UPWORDS.initial_state(), command) == "BAD_BAG"


def test_a_game_is_created_once_and_played_only_once_created() -> None:
    s, _ = run(UPWORDS.initial_state(), create(2))
    assert reason(s, create(2)) == "GAME_ALREADY_CREATED"
    assert reason(UPWORDS.initial_state(), Pass(0)) == "GAME_NOT_IN_PROGRESS"


def test_only_the_seat_to_move_plays_passes_exchanges_or_accepts() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=CHALLENGE)
    for command in (play(1, "6E A"), Pass(1), Exchange(1, "A", 0)):
        assert reason(s, command) == "NOT_YOUR_TURN", command
    s, _ = run(s, play(0, "5E (C)O(T)"))
    assert reason(s, AcceptPlay(0)) == "NOT_YOUR_TURN"


@pytest.mark.parametrize("seat", [-1, 2])
def test_a_seat_not_at_the_table_is_no_such_seat(seat: int) -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    for command in (Pass(seat), Challenge(seat, {"cot": False}), Resign(seat)):
        assert reason(s, command) == "NO_SUCH_SEAT", command


def test_only_a_play_awaiting_challenge_is_accepted_or_challenged() -> None:
    auto = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR")
    assert reason(auto, AcceptPlay(0)) == "NOTHING_TO_ACCEPT"
    assert reason(auto, Challenge(1, {})) == "NOTHING_TO_CHALLENGE"
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"), Pass(1))  # the pass closed the window
    assert reason(s, Challenge(1, {"cot": False})) == "NOTHING_TO_CHALLENGE"


def test_a_player_may_not_challenge_their_own_play() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    assert reason(s, Challenge(0, {"cot": False})) == "OWN_PLAY"


def test_a_last_play_must_be_accepted_or_challenged_before_anything_else() -> None:
    """Challenge mode: the play that empties the rack with the bag empty would end the game;
    the next seat may not pass, exchange or play over it (the window would close unseen)."""
    s = state(board("5E CAT"), racks=("O", "HIJ"), bag="", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    for command in (Pass(1), Exchange(1, "H", 0), play(1, "6E H")):
        assert reason(s, command) == "CHALLENGE_WINDOW_OPEN", command


def test_an_exchange_the_pending_plays_refill_leaves_no_tile_for_is_refused() -> None:
    """Challenge mode: the next seat's exchange first closes the window, and the player of
    the pending play refills from the bag; with nothing left there is nothing to exchange."""
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="P", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    assert reason(s, Exchange(1, "A", 0)) == "EXCHANGE_BAG_EMPTY"
    assert s.pending is not None  # refused: nothing happened


def test_an_exchange_puts_the_tile_back_only_where_the_bag_has_room() -> None:
    s = state(board("5E CAT"), racks=("ABCDEFG", "HIJKLMN"), bag="XYZ")
    for position in (-1, 3):
        assert reason(s, Exchange(0, "A", position)) == "BAD_POSITION"
    run(s, Exchange(0, "A", 2))


def test_a_play_of_no_tile_or_of_no_upwords_tile_is_refused() -> None:
    s = state(board("5E CAT"), racks=("ABCDEFG", "HIJKLMN"))
    assert reason(s, Play(0, ())) == "NO_TILES"
    assert reason(s, Play(0, (Placement(5, 4, "Q"),))) == "UNKNOWN_TILE"
    assert reason(s, Play(0, (Placement(5, 4, "a"),))) == "UNKNOWN_TILE"


def test_a_command_the_rules_do_not_know_is_unknown_command() -> None:
    s = state(board("5E CAT"), racks=("ABCDEFG", "HIJKLMN"))
    unknown: Command = object()  # type: ignore[assignment]
    with pytest.raises(ParlorError) as refused:
        UPWORDS.decide(s, unknown)
    assert refused.value.reason == "UNKNOWN_COMMAND"
