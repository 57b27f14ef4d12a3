"""Hidden information: hands, grids and the bag reach only their owner, until the game ends."""

from __future__ import annotations

import dataclasses
import random

from kits.takefour import create, lexicon, play, playout, start, tile, tile_set

from parlor.rules.takefour import (
    TAKE_FOUR,
    CallDone,
    JokerSwapped,
    MoveTile,
    PlaceTile,
    RoundScored,
    SwapJoker,
    TakeFourConfig,
    TakeFourState,
    TilesDealt,
    public_event,
    render,
    secret_fields,
    view,
)
from parlor.rules.takefour.state import Placement
from parlor.rules.takefour.view import GridChanged, RoundScoredSeen, TilesDealtSeen


def _mid_game() -> TakeFourState:
    state = start(create(3), random.Random(7).sample(range(100), 100))
    for seat in range(3):
        for x, t in enumerate(state.players[seat].hand[:3]):
            letter = "E" if state.config.tiles.is_joker(t) else None
            state = play(state, PlaceTile(seat, t, x, 0, letter))
    return state


def _with_other_secrets(state: TakeFourState, seat: int) -> TakeFourState:
    """The same public facts, but ``seat`` holds different tiles in hand and on the grid."""
    p = state.players[seat]
    shown = {t for q in state.players for t in (*q.hand, *(g.tile for g in q.grid.values()))}
    spare = iter(t for t in state.bag if t not in shown)
    hand = tuple(sorted(next(spare) for _ in p.hand))
    grid = {(x + 50, y - 50): Placement(next(spare), "Q") for x, y in p.grid}
    return state.with_player(seat, dataclasses.replace(p, hand=hand, grid=grid))


def test_views_never_contain_another_players_hand_or_grid_letters() -> None:
    state = _mid_game()
    mine = view(state, 0)
    assert mine.seats[0].hand == state.players[0].hand
    assert mine.seats[0].grid == state.players[0].grid
    for other in mine.seats[1:]:
        assert other.hand is None
        assert other.grid is None
        assert (other.in_hand, other.on_grid) == (1, 3)
    # What seat 0 (or a spectator) sees does not change when another player's secrets do.
    changed = _with_other_secrets(state, 2)
    for viewer in (0, 1, None):
        assert view(changed, viewer) == view(state, viewer)
        assert render(changed, viewer) == render(state, viewer)
    assert view(changed, 2) != view(state, 2)


def test_spectators_see_only_public_facts() -> None:
    seen = view(_mid_game(), None)
    assert all(s.hand is None and s.grid is None for s in seen.seats)
    assert seen.bag_count == 100 - 12


def test_a_viewer_that_is_no_seat_of_the_table_sees_what_a_spectator_sees() -> None:
    """Out of range, negative (which Python would index from the end) or a bool (True equals
    seat 1): none is a seat of this table, so none sees a hand or a grid."""
    state = _mid_game()
    spectator = view(state, None)
    for viewer in (3, 99, -1, True, False):
        seen = view(state, viewer)
        assert seen.me is None
        assert seen.seats == spectator.seats


def test_public_event_strips_every_secret_field_for_others() -> None:
    events = playout(3, TakeFourConfig(target=60), seed=11).events
    assert any(secret_fields(type(e)) for e in events)
    for event in events:
        secret = secret_fields(type(event))
        for viewer in (0, 1, 2, None):
            seen = public_event(event, viewer)
            if not secret:
                assert seen is event
                continue
            owner = getattr(event, "seat", None)
            if seen is event:
                assert viewer is not None
                assert viewer == owner
                continue
            assert not secret_fields(type(seen))
            if isinstance(seen, TilesDealtSeen):
                assert isinstance(event, TilesDealt)
                assert seen.own == (() if viewer is None else event.hands[viewer])
                assert seen.counts == event.counts
            if isinstance(seen, RoundScoredSeen):
                assert isinstance(event, RoundScored)
                assert seen.own_removed == (() if viewer is None else event.removed[viewer])


def test_everything_is_shown_once_the_game_is_over() -> None:
    state = start(create(2, tile_set("C1 A1 T1 Z1 O2"), deal_size=3, max_rounds=1))
    for seat, word in ((0, "CAT"), (1, "ZO")):
        for x, letter in enumerate(word):
            state = play(state, PlaceTile(seat, tile(state, seat, letter), x, 0))
    state = play(state, CallDone(0), words=lexicon("CAT", "ZO"))
    assert TAKE_FOUR.is_terminal(state)
    for viewer in (0, 1, None):
        seen = view(state, viewer)
        assert [s.grid for s in seen.seats] == [p.grid for p in state.players]
        assert [s.hand for s in seen.seats] == [p.hand for p in state.players]
    assert "hand: O" in render(state, None)


def test_no_view_during_play_shows_another_seats_hand_or_grid() -> None:
    events = playout(4, TakeFourConfig(target=60), seed=12).events
    state = TAKE_FOUR.initial_state()
    for event in events:
        state = TAKE_FOUR.evolve(state, event)
        if TAKE_FOUR.is_terminal(state):
            break
        for viewer in (0, 1, 2, 3, None):
            for seen in view(state, viewer).seats:
                if seen.seat != viewer:
                    assert seen.hand is None
                    assert seen.grid is None


def test_a_joker_swap_shows_others_only_what_a_move_shows() -> None:
    """RULES.md ("Hidden information"): others see only counts and public moves. A swap
    changes no count, as a move does; naming it would tell them that a joker stood on the
    grid and is now in the hand. Its owner sees it whole."""
    tiles = tile_set("C1 A1 T1 D1 O1 G1", jokers=2)  # ids: C0 A1 T2 D3 O4 G5 ?6 ?7
    state = start(create(2, tiles), [0, 6, 2, 1, 3, 4, 5, 7])  # seat 0: C ? T A
    state = play(state, PlaceTile(0, 6, 0, 0, "A"))
    swap = TAKE_FOUR.decide(state, SwapJoker(0, 1, 0, 0))[0]
    move = TAKE_FOUR.decide(state, MoveTile(0, 0, 0, 1, 0))[0]
    assert isinstance(swap, JokerSwapped)
    for viewer in (1, None):
        assert public_event(swap, viewer) == public_event(move, viewer)
        assert public_event(swap, viewer) == GridChanged(0, "moved")
    assert public_event(swap, 0) is swap
    assert public_event(swap, 1, reveal=True) is swap  # the game is over: everything shows
