"""Time (docs/rules/takefour.md, "Time"): idle seats agree to deals; forfeited seats are out."""

from __future__ import annotations

import pytest
from kits.takefour import create, events_of, lexicon, play, start, tile, tile_set

from parlor.core.errors import RuleViolation
from parlor.rules.takefour import (
    TAKE_FOUR,
    AgreeToDeal,
    CallDone,
    DealAgreed,
    Forfeit,
    GameEnded,
    MarkIdle,
    PlaceTile,
    RoundScored,
    SeatForfeited,
    SeatIdle,
    TilesDealt,
)

CATS_DOGZ_BEER = tile_set("C1 A1 T1 S1 D1 O1 G1 Z1 B1 E2 R1")


def test_an_idle_seat_counts_as_agreeing_to_the_stalemate_deal() -> None:
    state = play(start(create(3)), AgreeToDeal(0), AgreeToDeal(1))
    events = events_of(state, MarkIdle(2))
    assert events[0] == SeatIdle(2)
    assert isinstance(events[1], TilesDealt)
    assert events[1].kind == "stalemate"


def test_a_seat_agreeing_after_the_others_went_idle_deals_at_once() -> None:
    state = play(start(create(3)), MarkIdle(1), MarkIdle(2))
    events = events_of(state, AgreeToDeal(0))
    assert events[0] == DealAgreed(0)
    assert isinstance(events[1], TilesDealt)


def test_idle_seats_alone_deal_nothing() -> None:
    state = play(start(create(2)), MarkIdle(0))
    assert events_of(state, MarkIdle(1)) == [SeatIdle(1)]


def test_acting_again_ends_being_idle() -> None:
    state = play(start(create(2)), MarkIdle(1))
    assert state.players[1].idle
    t = state.players[1].hand[0]
    state = play(state, PlaceTile(1, t, 0, 0, "E" if state.config.tiles.is_joker(t) else None))
    assert not state.players[1].idle


def test_a_forfeited_seat_can_no_longer_act_or_call() -> None:
    state = play(start(create(3)), Forfeit(2, "TIMEOUT"))
    assert state.players[2].forfeited
    for command in (AgreeToDeal(2), CallDone(2), Forfeit(2)):
        with pytest.raises(RuleViolation) as refused:
            play(state, command)
        assert refused.value.rule == "FORFEITED"


def test_the_last_seat_racing_wins_when_the_others_forfeit() -> None:
    state = play(start(create(3)), Forfeit(1, "LEFT"))
    events = events_of(state, Forfeit(0, "TIMEOUT"))
    assert events == [SeatForfeited(0, "TIMEOUT"), GameEnded(totals=(0, 0, 0), winners=(2,))]


def test_a_forfeited_seat_scores_all_its_tiles_as_unplaced() -> None:
    state = start(create(3, CATS_DOGZ_BEER))
    for seat, word in ((0, "CATS"), (1, "DOG")):
        for x, letter in enumerate(word):
            state = play(state, PlaceTile(seat, tile(state, seat, letter), x, 0))
    state = play(state, Forfeit(1, "LEFT"))
    events = events_of(state, CallDone(0), words=lexicon("CATS", "DOG"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    values = state.config.tiles
    dogz = sum(
        values.value(t)
        for t in (*state.players[1].hand, *(p.tile for p in state.players[1].grid.values()))
    )
    assert scored.scores[0] == 0
    assert scored.scores[1] == dogz  # DOG on its grid counts too, not doubled
    assert TAKE_FOUR.is_terminal(state) is False
