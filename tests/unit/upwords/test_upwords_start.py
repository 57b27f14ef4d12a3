"""The start: first player by draw (ties draw again, tiles go back), 7-tile racks."""

from __future__ import annotations

import random

import pytest

from parlor.core.errors import InvalidArgument
from parlor.rules.upwords import (
    UPWORDS,
    CreateGame,
    GameCreated,
    Play,
    UpwordsConfig,
    WordChecking,
    full_bag,
    tile_counts,
)
from parlor.rules.upwords.moves import Placement
from parlor.rules.upwords.state import Phase
from parlor.rules.upwords.tiles import DISTRIBUTION


def order_starting(front: str | list[str], seed: int = 1) -> tuple[str, ...]:
    """A full bag whose first tiles are ``front``, the rest shuffled."""
    rest = list(full_bag())
    for tile in front:
        rest.remove(tile)
    random.Random(seed).shuffle(rest)
    return (*front, *rest)


def create(seats: int, draw_front: str | list[str]) -> GameCreated:
    command = CreateGame(
        UpwordsConfig(),
        tuple(f"p{i}" for i in range(seats)),
        order_starting(draw_front),
        full_bag(),
    )
    (event,) = UPWORDS.decide(UPWORDS.initial_state(), command)
    assert isinstance(event, GameCreated)
    return event


def test_the_bag_holds_the_hundred_tiles_of_the_rules() -> None:
    assert sum(DISTRIBUTION.values()) == 100
    assert DISTRIBUTION["E"] == 8
    assert DISTRIBUTION["Qu"] == 1
    assert "Q" not in DISTRIBUTION


def test_first_player_by_draw_nearest_to_a() -> None:
    event = create(3, "MDT")
    assert event.first_seat == 1
    assert len(event.first_draw) == 1


def test_first_player_tie_draws_again_among_the_tied() -> None:
    # Seats 0 and 2 both draw B; only they draw again: seat 0 gets Z, seat 2 gets E.
    event = create(3, "BXBZE")
    assert [r.draws for r in event.first_draw] == [
        ((0, "B"), (1, "X"), (2, "B")),
        ((0, "Z"), (2, "E")),
    ]
    assert event.first_seat == 2


def test_the_first_draw_tiles_go_back_before_the_deal() -> None:
    event = create(2, "AB")
    assert event.racks is not None
    assert event.bag is not None
    assert event.racks == (full_bag()[:7], full_bag()[7:14])
    assert event.bag == full_bag()[14:]
    state = UPWORDS.evolve(UPWORDS.initial_state(), event)
    assert tile_counts(state) == DISTRIBUTION


def test_seven_tile_racks_and_the_first_player_to_move() -> None:
    event = create(4, "EDCB")
    state = UPWORDS.evolve(UPWORDS.initial_state(), event)
    assert state.phase is Phase.PLAYING
    assert [len(r) for r in state.racks] == [7, 7, 7, 7]
    assert len(state.bag) == 100 - 28
    assert state.to_move == 3


def test_the_bag_orders_must_be_full_shuffles() -> None:
    command = CreateGame(UpwordsConfig(), ("a", "b"), full_bag()[1:], full_bag())
    with pytest.raises(InvalidArgument):
        UPWORDS.decide(UPWORDS.initial_state(), command)


def test_two_to_four_players() -> None:
    command = CreateGame(UpwordsConfig(), ("a",), full_bag(), full_bag())
    with pytest.raises(InvalidArgument):
        UPWORDS.decide(UPWORDS.initial_state(), command)


@pytest.mark.parametrize("written", ["auto", "challenge"])
def test_word_checking_written_as_text_is_recorded_as_the_mode(written: str) -> None:
    # RULES.md, Upwords, "Word checking (configurable)": a config naming its mode in plain
    # text ("auto", as JSON would carry it) plays that mode; it used to play neither (plays
    # taken unchecked, no refill, no challenge window).
    config = UpwordsConfig(word_checking=written)  # type: ignore[arg-type]
    command = CreateGame(config, ("a", "b"), order_starting("AB"), full_bag())
    (event,) = UPWORDS.decide(UPWORDS.initial_state(), command)
    assert isinstance(event, GameCreated)
    assert event.config.word_checking is WordChecking(written)
    state = UPWORDS.evolve(UPWORDS.initial_state(), event)
    rack = state.racks[0]
    placements = (Placement(4, 4, rack[0]), Placement(4, 5, rack[1]))
    if written == "auto":
        with pytest.raises(InvalidArgument) as caught:
            UPWORDS.decide(state, Play(0, placements))
        assert caught.value.reason == "MISSING_VERDICTS"
    else:
        for e in UPWORDS.decide(state, Play(0, placements)):
            state = UPWORDS.evolve(state, e)
        assert state.pending is not None
        assert state.pending.seat == 0


@pytest.mark.parametrize(
    "config",
    [
        UpwordsConfig(word_checking="strict"),  # type: ignore[arg-type]
        UpwordsConfig(plural_rule="yes"),  # type: ignore[arg-type]
        UpwordsConfig(lexicon=None),  # type: ignore[arg-type]
        None,
    ],
)
def test_a_config_the_rules_cannot_read_is_refused(config: object) -> None:
    command = CreateGame(config, ("a", "b"), order_starting("AB"), full_bag())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument) as caught:
        UPWORDS.decide(UPWORDS.initial_state(), command)
    assert caught.value.reason == "BAD_CONFIG"
