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
from parlor.rules.takefour.contract import ENGINE
from parlor.rules.takefour.rules import legal_moves
from parlor.rules.takefour.standings import standings

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


def test_a_seat_that_forfeited_never_wins_even_with_the_lowest_total() -> None:
    """It ranks behind every seat still racing: the game's winners are the racing seats'
    lowest total, in GameEnded, in the result and in the standings alike."""
    tiles = tile_set("Z3 A3")  # seat 0: Z Z, seat 1: Z A, seat 2: A A
    state = play(start(create(3, tiles, deal_size=2, target=5)), Forfeit(2, "LEFT"))
    events = events_of(state, CallDone(0), words=lexicon())
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.totals == (40, 11, 2)  # seat 2, out of the race, has the lowest
    assert ended.winners == (1,)
    state = play(state, CallDone(0), words=lexicon())
    result = TAKE_FOUR.result(state)
    assert result is not None
    assert result.winners == (1,)
    engine = ENGINE.result(state)
    assert engine is not None
    assert engine.winners == (1,)
    assert [s.rank for s in standings(state)[1]] == [2, 1, 3]
    assert [s.departure for s in standings(state)[1]] == ["", "", "LEFT"]


def test_a_seat_forfeited_on_time_and_one_that_left_say_so_apart() -> None:
    state = play(start(create(3)), Forfeit(0, "TIMEOUT"), Forfeit(1, "LEFT"))
    reason, ranked = standings(state)
    assert reason == "FORFEIT"
    assert [s.departure for s in ranked] == ["FORFEITED", "LEFT", ""]
    assert [p.timed_out for p in state.players] == [True, False, False]
    assert [seat.departure for seat in TAKE_FOUR.view(state, None).seats] == [
        "FORFEITED",
        "LEFT",
        "",
    ]


def test_a_seat_that_forfeited_is_refused_saying_why() -> None:
    state = play(start(create(4)), Forfeit(0, "TIMEOUT"), Forfeit(1, "LEFT"))
    for seat, why, words in ((0, "FORFEITED", "ran out of time"), (1, "LEFT", "left")):
        with pytest.raises(RuleViolation) as refused:
            events_of(state, Forfeit(seat, "LEFT"))
        assert refused.value.rule == "FORFEITED"
        assert refused.value.metadata == {"departure": why}
        assert words in str(refused.value)


def test_the_last_seat_racing_is_the_result_s_winner_whatever_the_totals() -> None:
    """Forfeits ending the game: the result names the seat left racing (as GameEnded and
    the standings do), for the reason FORFEIT, even when the seat that left had less."""
    tiles = tile_set("Z4")
    state = start(create(2, tiles, deal_size=2))
    state = start(play(state, CallDone(1), words=lexicon()))  # totals (20, 40)
    events = events_of(state, Forfeit(0, "LEFT"))
    assert events[-1] == GameEnded(totals=(20, 40), winners=(1,))
    state = play(state, Forfeit(0, "LEFT"))
    result = TAKE_FOUR.result(state)
    assert result is not None
    assert result.winners == (1,)
    engine = ENGINE.result(state)
    assert engine is not None
    assert (engine.reason, engine.winners) == ("FORFEIT", (1,))
    assert standings(state)[0] == "FORFEIT"


def test_a_seat_that_forfeited_has_no_legal_moves() -> None:
    state = play(start(create(3)), Forfeit(2, "TIMEOUT"))
    assert legal_moves(state, 2) == []
    assert legal_moves(state, 0)


def test_games_of_rules_2_replay_their_winners_as_they_were_decided() -> None:
    """Rules 2 took the lowest total of every seat, a forfeited one too: its games' GameEnded
    is decided again so (``parlor verify``), and the result names the winners recorded."""
    tiles = tile_set("Z3 A3")
    state = play(start(create(3, tiles, deal_size=2, target=5, rules=2)), Forfeit(2, "LEFT"))
    ended = events_of(state, CallDone(0), words=lexicon())[-1]
    assert ended == GameEnded(totals=(40, 11, 2), winners=(2,))
    result = TAKE_FOUR.result(play(state, CallDone(0), words=lexicon()))
    assert result is not None
    assert result.winners == (2,)


@pytest.mark.parametrize(("rules", "ends"), [(3, False), (2, True)])
def test_a_seat_that_forfeited_does_not_end_the_game_at_the_target(rules: int, ends: bool) -> None:
    """It is still dealt and scored, and its total climbs every round: under rules 3 only a
    seat still racing reaches the target (rules 2 counted every seat, and its games replay
    so)."""
    tiles = tile_set("Z3 A3")  # seat 0: Z Z, seat 1: Z A, seat 2: A A
    state = start(create(3, tiles, deal_size=2, target=15, rules=rules))
    state = play(state, Forfeit(0, "LEFT"))
    for x, letter in enumerate("AA"):
        state = play(state, PlaceTile(2, tile(state, 2, letter), x, 0))
    events = events_of(state, CallDone(2), words=lexicon("AA"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert scored.totals == (20, 11, 0)  # only the forfeited seat is past 15
    assert isinstance(events[-1], GameEnded) is ends
    after = play(state, CallDone(2), words=lexicon("AA"))
    assert TAKE_FOUR.is_terminal(after) is ends
    if ends:
        assert standings(after)[0] == "TARGET_SCORE"
