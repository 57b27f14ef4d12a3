"""One test per Take Four fine point (RULES.md, "Fine points"), and the rules versions.

Rules 2 (new games): a deal that would give each player 0 tiles is no deal, and an
honor-mode Done is not checked when called. Rules 1 (games recorded before versions)
keeps the old reading, so a replay decides every recorded command as it was decided.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from kits.takefour import create, events_of, lexicon, play, start, tile, tile_set

from parlor.core.errors import InvalidArgument, RuleViolation
from parlor.rules.takefour import (
    RULES_VERSION,
    TAKE_FOUR,
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    CreateGame,
    DoneCalled,
    PlaceTile,
    RoundScored,
    StartRound,
    TakeFourConfig,
    TakeFourState,
    TilesDealt,
)
from parlor.rules.takefour.rules import legal_moves

DEAL = 4


def laid_out(state: TakeFourState, seat: int) -> TakeFourState:
    """Honor mode does not check calls: every hand tile in a row below the grid."""
    row = max((y for _, y in state.players[seat].grid), default=-1) + 1
    hand = state.players[seat].hand
    return play(state, *(_place(state, seat, t, x, row) for x, t in enumerate(hand)))


def _place(state: TakeFourState, seat: int, t: int, x: int, y: int) -> PlaceTile:
    return PlaceTile(seat, t, x, y, "E" if state.config.tiles.is_joker(t) else None)


def with_bag(players: int, bag: int, rules: int = RULES_VERSION) -> TakeFourState:
    """A round in play, seat 0's tiles all placed, exactly ``bag`` tiles left in the bag.

    The tiles beyond ``bag`` are set aside as unused, so every tile is still accounted for.
    """
    state = start(create(players, tile_set("E80"), rules=rules))
    state = laid_out(state, 0)
    return replace(state, bag=state.bag[:bag], unused=state.unused + state.bag[bag:])


def conserved(state: TakeFourState) -> bool:
    held = [t for p in state.players for t in (*p.hand, *(q.tile for q in p.grid.values()))]
    return sorted(held + list(state.bag) + list(state.unused)) == list(range(80))


@pytest.mark.parametrize("players", range(2, 9))
def test_deal_sizes_for_every_bag_of_0_to_40_tiles(players: int) -> None:
    """Full deals of 4 while they last, then an equal share; never a deal of 0 tiles each."""
    for bag in range(41):
        state = with_bag(players, bag)
        share = min(DEAL, bag // players)
        if share == 0:  # fewer tiles than players: the bag counts as empty
            assert state.bag_empty
            for call in (CallTakeFour(0), AgreeToDeal(1)):
                with pytest.raises(RuleViolation) as refused:
                    play(state, call)
                assert refused.value.rule == "BAG_EMPTY", (players, bag)
            assert play(state, CallDone(0), words=lexicon()).results, (players, bag)
            continue
        assert not state.bag_empty
        dealt = events_of(state, CallTakeFour(0))[-1]
        assert isinstance(dealt, TilesDealt)
        left = bag - share * players
        too_few = left < players
        assert dealt.counts == (share,) * players, (players, bag)
        assert dealt.kind == ("take_four" if share == DEAL else "last"), (players, bag)
        assert len(dealt.unused) == (left if too_few else 0), (players, bag)
        assert dealt.bag_left == (0 if too_few else left), (players, bag)
        after = play(state, CallTakeFour(0))
        assert after.bag_empty == too_few
        assert len(after.bag) == dealt.bag_left
        assert conserved(after)


@pytest.mark.parametrize("players", range(2, 9))
def test_start_deal_sizes_for_every_tile_set_of_0_to_40_tiles(players: int) -> None:
    """The first deal follows the same rule; a set too small to give everyone a tile is
    refused when the game is created (and an empty set is no set)."""
    for size in range(41):
        config = TakeFourConfig(tiles=tile_set(f"E{size}"))
        seats = tuple(f"p{i}" for i in range(players))
        if size < players:
            with pytest.raises(InvalidArgument):
                TAKE_FOUR.decide(TAKE_FOUR.initial_state(), CreateGame(config, seats))
            continue
        state = play(TAKE_FOUR.initial_state(), CreateGame(config, seats))
        dealt = events_of(state, StartRound(tuple(range(size))))[-1]
        assert isinstance(dealt, TilesDealt)
        share = min(DEAL, size // players)
        left = size - share * players
        assert dealt.counts == (share,) * players, (players, size)
        assert (len(dealt.unused), dealt.bag_left) == ((left, 0) if left < players else (0, left))


@pytest.mark.parametrize("players", range(2, 9))
def test_stalemate_deal_sizes_follow_the_same_rule(players: int) -> None:
    for bag in range(players, 41):
        state = with_bag(players, bag)
        for seat in range(1, players):
            state = play(state, AgreeToDeal(seat))
        dealt = events_of(state, AgreeToDeal(0))[-1]
        assert isinstance(dealt, TilesDealt)
        share = min(DEAL, bag // players)
        assert dealt.counts == (share,) * players
        assert dealt.kind == ("stalemate" if share == DEAL else "last")
        assert dealt.bag_left == 0 or dealt.bag_left >= players


def test_a_deal_that_would_give_each_player_0_tiles_is_no_deal() -> None:
    """6 players, 100 tiles: 4 deals of 24 leave 4, never dealt; Done may be called at once."""
    state = start(create(6))
    for _ in range(3):
        state = laid_out(state, 0)
        last = events_of(state, CallTakeFour(0))[-1]
        state = play(state, CallTakeFour(0))
    assert isinstance(last, TilesDealt)
    assert (last.kind, last.counts, len(last.unused), last.bag_left) == (
        "take_four",
        (4,) * 6,
        4,
        0,
    )
    assert state.bag == ()
    assert len(state.unused) == 4
    state = laid_out(state, 0)
    with pytest.raises(RuleViolation) as refused:
        play(state, CallTakeFour(0))
    assert refused.value.rule == "BAG_EMPTY"
    assert isinstance(events_of(state, CallDone(0), words=lexicon())[0], DoneCalled)


def test_the_standard_set_with_8_players_leaves_4_tiles_unused_without_a_deal_of_0() -> None:
    state = start(create(8))  # 100 = 32 + 32 + 32 + 4
    state = play(laid_out(state, 0), CallTakeFour(0))
    last = events_of(laid_out(state, 0), CallTakeFour(0))[-1]
    assert isinstance(last, TilesDealt)
    assert (last.counts, len(last.unused), last.bag_left) == ((4,) * 8, 4, 0)


def test_three_players_take_one_leaves_one_tile_and_play_goes_straight_to_done() -> None:
    state = start(create(3))  # 100 tiles: 12 dealt, 88 left
    for _ in range(7):
        state = play(laid_out(state, 0), CallTakeFour(0))
    state = play(laid_out(state, 0), CallTakeFour(0))  # "Take 1": 1 each, 1 unused
    assert (len(state.bag), len(state.unused)) == (0, 1)
    state = laid_out(state, 0)
    assert play(state, CallDone(0), words=lexicon()).results


def test_honor_mode_done_is_not_checked_even_with_tiles_in_hand() -> None:
    """The call stands; the caller pays twice removed plus never-placed; others as before."""
    tiles = tile_set("C1 A1 T1 Z1 D1 O1 G1 Q1")  # seat 0: C A T Z, seat 1: D O G Q
    state = start(create(2, tiles))
    state = play(state, *(_place(state, 0, tile(state, 0, f), x, 0) for x, f in enumerate("CAT")))
    state = play(state, *(_place(state, 1, tile(state, 1, f), x, 0) for x, f in enumerate("DOG")))
    # Seat 0's grid is C A T (x = 0..2), seat 1's D O G; seat 0 still holds Z, seat 1 Q.
    assert [len(p.hand) for p in state.players] == [1, 1]
    events = events_of(state, CallDone(0), words=lexicon("CA", "DOG"))
    done = events[0]
    assert isinstance(done, DoneCalled)
    assert done.in_hand == 1
    scored = next(e for e in events if isinstance(e, RoundScored))
    # Seat 0 keeps CA; T (1) is removed and Z (10) never placed: 2 x 11.
    # Seat 1 keeps DOG and never placed Q (10): scored as before, not doubled.
    assert scored.removed == (((2, 0),), ())
    assert (scored.scores, scored.done_valid) == ((22, 10), False)


def test_honor_mode_done_with_no_tile_placed_stands_and_pays_double() -> None:
    state = start(create(2, tile_set("C1 A1 T1 Z1 D1 O1 G1 Q1")))
    events = events_of(state, CallDone(1), words=lexicon())
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert scored.scores == (15, 2 * 15)  # C A T Z = 3+1+1+10; D O G Q = 2+1+2+10, doubled


def test_auto_mode_done_with_tiles_in_hand_is_refused() -> None:
    state = start(create(2, tile_set("C1 A1 T1 Z1 D1 O1 G1 Q1"), checking="auto"))
    state = play(state, *(_place(state, 0, tile(state, 0, f), x, 0) for x, f in enumerate("CAT")))
    with pytest.raises(RuleViolation) as refused:
        play(state, CallDone(0), words=lexicon("CAT"))
    assert refused.value.rule == "HAND_NOT_EMPTY"


@pytest.mark.parametrize("checking", ["honor", "auto"])
def test_take_four_needs_an_empty_hand_in_both_modes(checking: str) -> None:
    state = start(create(2, checking=checking))
    state = play(state, _place(state, 0, state.players[0].hand[0], 0, 0))
    with pytest.raises(RuleViolation) as refused:
        play(state, CallTakeFour(0), words=lexicon())
    assert refused.value.rule == "HAND_NOT_EMPTY"


def test_honor_mode_done_is_a_legal_move_with_tiles_in_hand_only_in_rules_2() -> None:
    state = start(create(2, tile_set("C1 A1 T1 Z1 D1 O1 G1 Q1")))
    assert CallDone(0) in legal_moves(state, 0)
    old = start(create(2, tile_set("C1 A1 T1 Z1 D1 O1 G1 Q1"), rules=1))
    assert CallDone(0) not in legal_moves(old, 0)


def test_new_games_record_the_current_rules_version() -> None:
    assert RULES_VERSION == 3
    assert TakeFourConfig().rules == RULES_VERSION
    assert create(2).config.rules == RULES_VERSION
    for bad in (0, RULES_VERSION + 1):
        with pytest.raises(InvalidArgument):
            create(2, rules=bad)


def test_rules_1_keeps_the_deal_of_0_tiles_each_and_the_checked_honor_done() -> None:
    """Games recorded before versions replay by the reading they were decided by."""
    state = with_bag(6, 4, rules=1)
    assert not state.bag_empty
    with pytest.raises(RuleViolation) as refused:
        play(state, CallDone(0), words=lexicon())
    assert refused.value.rule == "BAG_NOT_EMPTY"
    dealt = events_of(state, CallTakeFour(0))[-1]
    assert isinstance(dealt, TilesDealt)
    assert (dealt.kind, dealt.counts, len(dealt.unused)) == ("last", (0,) * 6, 4)
    held = start(create(2, tile_set("C1 A1 T1 Z1 D1 O1 G1 Q1"), rules=1))
    with pytest.raises(RuleViolation) as refused:
        play(held, CallDone(0), words=lexicon())
    assert refused.value.rule == "HAND_NOT_EMPTY"


def test_a_tile_set_smaller_than_the_table_is_refused() -> None:
    """Rules 2: a start deal of 0 tiles each would be no deal, so no round could be played."""
    config = TakeFourConfig(tiles=tile_set("A1 B1"))
    with pytest.raises(InvalidArgument) as refused:
        TAKE_FOUR.decide(TAKE_FOUR.initial_state(), CreateGame(config, ("a", "b", "c")))
    assert refused.value.reason == "TILE_SET_TOO_SMALL"
    assert TAKE_FOUR.decide(TAKE_FOUR.initial_state(), CreateGame(config, ("a", "b")))
