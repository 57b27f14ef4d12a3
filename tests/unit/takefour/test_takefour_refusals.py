"""Illegal input: every Take Four command the engine refuses, refused with the rule it names.

The refusals the other files already show (``TILE_NOT_IN_HAND``, ``CELL_OCCUPIED`` on a
placement, ``CELL_EMPTY``, ``NOT_A_JOKER``, ``LETTER_MISMATCH``, ``HAND_NOT_EMPTY``,
``BAG_EMPTY``, ``BAG_NOT_EMPTY``, ``ALREADY_AGREED``, ``INVALID_CROSSWORD``,
``MISSING_VERDICTS``, ``COORDINATE_OUT_OF_RANGE``, ``JOKER_LETTER_REQUIRED``,
``ROUND_NOT_IN_PLAY``, ``GAME_OVER``, ``FORFEITED``, ``TILE_SET_TOO_SMALL``) are not
repeated here.
"""

from __future__ import annotations

import pytest
from kits.takefour import create, play, start, tile, tile_set

from parlor.core.errors import InvalidArgument, RuleViolation
from parlor.rules.takefour import (
    TAKE_FOUR,
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    CreateGame,
    Forfeit,
    LetterTiles,
    MarkIdle,
    MoveTile,
    PlaceTile,
    StartRound,
    SwapJoker,
    TakeBackTile,
    TakeFourCommand,
    TakeFourConfig,
    TakeFourState,
    TileMoved,
    TileSet,
    WithdrawAgreement,
)
from parlor.rules.takefour.state import Placement

# ids: C0 A1 T2 S3 D4 O5 G6 Z7 ?8 ?9; seat 0 is dealt C A T S, seat 1 D O G Z
CATS_DOGZ = tile_set("C1 A1 T1 S1 D1 O1 G1 Z1", jokers=2)


def dealt() -> TakeFourState:
    return start(create(2, CATS_DOGZ))


def refused_rule(state: TakeFourState, *commands: TakeFourCommand) -> str:
    with pytest.raises(RuleViolation) as refused:
        play(state, *commands)
    return refused.value.rule


def refused_reason(state: TakeFourState, *commands: TakeFourCommand) -> str:
    with pytest.raises(InvalidArgument) as refused:
        play(state, *commands)
    return refused.value.reason


def test_a_round_is_started_only_in_a_created_game_between_rounds() -> None:
    assert refused_rule(TAKE_FOUR.initial_state(), StartRound(tuple(range(10)))) == (
        "GAME_NOT_CREATED"
    )
    assert refused_rule(dealt(), StartRound(tuple(range(10)))) == "ROUND_IN_PROGRESS"


def test_a_forfeit_before_the_game_exists_is_refused() -> None:
    assert refused_rule(TAKE_FOUR.initial_state(), Forfeit(0)) == "GAME_NOT_CREATED"


def test_a_letter_tile_shows_only_its_own_letter() -> None:
    state = dealt()
    c = tile(state, 0, "C")
    assert refused_reason(state, PlaceTile(0, c, 0, 0, "K")) == "WRONG_LETTER"
    state = play(state, PlaceTile(0, c, 0, 0, "C"))  # naming its own letter is fine
    assert refused_reason(state, MoveTile(0, 0, 0, 1, 0, "K")) == "WRONG_LETTER"
    assert play(state, MoveTile(0, 0, 0, 1, 0, "C")).players[0].letters() == {(1, 0): "C"}


def test_a_joker_may_take_another_letter_when_moved_or_where_it_stands() -> None:
    """RULES.md: a joker stands for any letter, chosen when placed; rearranging may re-place
    it (docs/rules/takefour.md: "it may take another letter when moved")."""
    state = start(create(2, CATS_DOGZ), [8, 0, 1, 2, 9, 3, 4, 5, 6, 7])  # seat 0: ? C A T
    state = play(state, PlaceTile(0, 8, 0, 0, "S"))
    events = TAKE_FOUR.decide(state, MoveTile(0, 0, 0, 3, 0, "E"))
    assert list(events) == [TileMoved(0, 0, 0, 3, 0, "E")]
    state = play(state, MoveTile(0, 0, 0, 0, 0, "O"))  # re-lettered in place
    assert state.players[0].grid == {(0, 0): Placement(8, "O")}
    assert refused_reason(state, MoveTile(0, 0, 0, 0, 0, "Ö")) == "JOKER_LETTER_REQUIRED"


def test_a_move_that_changes_nothing_is_refused() -> None:
    state = play(dealt(), PlaceTile(0, 0, 0, 0))
    assert refused_reason(state, MoveTile(0, 0, 0, 0, 0)) == "NO_CHANGE"
    assert refused_reason(state, MoveTile(0, 0, 0, 0, 0, "C")) == "NO_CHANGE"


def test_a_tile_moves_only_to_a_free_cell() -> None:
    state = play(dealt(), PlaceTile(0, 0, 0, 0), PlaceTile(0, 1, 1, 0))
    assert refused_rule(state, MoveTile(0, 0, 0, 1, 0)) == "CELL_OCCUPIED"
    assert refused_rule(state, MoveTile(0, 5, 5, 2, 0)) == "CELL_EMPTY"


def test_only_an_agreement_made_can_be_withdrawn() -> None:
    state = dealt()
    assert refused_rule(state, WithdrawAgreement(0)) == "NOT_AGREED"
    state = play(state, AgreeToDeal(0), WithdrawAgreement(0))
    assert refused_rule(state, WithdrawAgreement(0)) == "NOT_AGREED"


def test_a_seat_already_idle_is_not_marked_idle_again() -> None:
    state = play(dealt(), MarkIdle(1))
    assert refused_rule(state, MarkIdle(1)) == "ALREADY_IDLE"


# --- malformed requests: InvalidArgument, each with a reason of its own ---------------------


@pytest.mark.parametrize(
    "seats", [("a",), tuple("abcdefghi"), ("a", "a"), ("a", "")], ids=["1", "9", "twice", "empty"]
)
def test_a_table_of_other_than_2_to_8_distinct_players_is_bad_seats(seats: tuple[str, ...]) -> None:
    command = CreateGame(TakeFourConfig(), seats)
    assert refused_reason(TAKE_FOUR.initial_state(), command) == "BAD_SEATS"


@pytest.mark.parametrize(
    "config",
    [
        TakeFourConfig(checking="strict"),  # type: ignore[arg-type]
        TakeFourConfig(target=0),
        TakeFourConfig(max_rounds=0),
        TakeFourConfig(deal_size=0),
        TakeFourConfig(rules=0),
    ],
    ids=["checking", "target", "max_rounds", "deal_size", "rules"],
)
def test_a_config_the_rules_cannot_play_is_bad_config(config: TakeFourConfig) -> None:
    command = CreateGame(config, ("a", "b"))
    assert refused_reason(TAKE_FOUR.initial_state(), command) == "BAD_CONFIG"


@pytest.mark.parametrize(
    "tiles",
    [
        TileSet((LetterTiles("?", 4, 0),)),
        TileSet((LetterTiles("A", 2, 1), LetterTiles("A", 2, 1))),
        TileSet((LetterTiles("A", -1, 1),)),
        TileSet((LetterTiles("A", 2, -1),)),
        TileSet((LetterTiles("A", 2, 1),), jokers=-1),
        TileSet((), jokers=0),
    ],
    ids=["letter", "twice", "count", "value", "jokers", "empty"],
)
def test_a_tile_set_the_rules_cannot_deal_is_bad_tile_set(tiles: TileSet) -> None:
    command = CreateGame(TakeFourConfig(tiles=tiles), ("a", "b"))
    assert refused_reason(TAKE_FOUR.initial_state(), command) == "BAD_TILE_SET"


def test_a_bag_order_that_is_not_every_tile_once_is_bad_bag() -> None:
    state = create(2, CATS_DOGZ)
    for order in ((), tuple(range(9)), (0, *range(9)), tuple(range(1, 11))):
        assert refused_reason(state, StartRound(order)) == "BAD_BAG"


@pytest.mark.parametrize("seat", [-1, 2])
def test_a_seat_not_at_the_table_is_no_such_seat(seat: int) -> None:
    state = dealt()
    for command in (
        PlaceTile(seat, 0, 0, 0),
        MoveTile(seat, 0, 0, 1, 0),
        TakeBackTile(seat, 0, 0),
        SwapJoker(seat, 0, 0, 0),
        CallTakeFour(seat),
        AgreeToDeal(seat),
        WithdrawAgreement(seat),
        CallDone(seat),
        MarkIdle(seat),
        Forfeit(seat),
    ):
        assert refused_reason(state, command) == "NO_SUCH_SEAT", command


def test_a_command_the_rules_do_not_know_is_unknown_command() -> None:
    with pytest.raises(InvalidArgument) as refused:
        TAKE_FOUR.decide(dealt(), object())  # type: ignore[arg-type]
    assert refused.value.reason == "UNKNOWN_COMMAND"


def test_a_command_for_another_round_of_a_game_that_is_over_hears_the_game_is_over() -> None:
    """The round check comes first for a game in play (``ROUND_CHANGED``: look again); once
    the game is over, what the caller needs to hear is that (``GAME_OVER``), not the round."""
    from parlor.rules.takefour import check_round

    over = play(dealt(), Forfeit(1))
    assert TAKE_FOUR.is_terminal(over)
    check_round(over, over.round + 1)  # not refused here: the engine refuses it as over
    assert refused_rule(over, PlaceTile(0, 0, 0, 0)) == "GAME_OVER"
    with pytest.raises(RuleViolation) as refused:
        check_round(dealt(), 2)
    assert refused.value.reason == "ROUND_CHANGED"


@pytest.mark.parametrize("named", ["?!", "AB", "1", "é", "?"])
def test_a_letter_that_is_no_letter_is_refused_before_the_hand_is_looked_at(named: str) -> None:
    from parlor.rules.takefour.tiles import named_letter

    with pytest.raises(InvalidArgument) as refused:
        named_letter(named)
    assert refused.value.reason == "WRONG_LETTER"
    assert named_letter("") is None
    assert named_letter("q") == "Q"
