"""Hidden information: racks and the bag are seen only by their owner until the end."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from upwords_testkit import approved, board, run, state

from parlor.rules.upwords import (
    UPWORDS,
    CreateGame,
    Exchange,
    GameCreated,
    Pass,
    TileExchanged,
    TilesDrawn,
    UpwordsConfig,
    event_for,
    full_bag,
    public_event,
    secret_fields,
    view,
)
from parlor.rules.upwords.contract import ENGINE

RACKS = st.lists(st.sampled_from("ABCDEFGHIJKLMNOPRSTUVWXYZ"), min_size=7, max_size=7)


@settings(max_examples=50)
@given(racks=st.lists(RACKS, min_size=2, max_size=4), viewer=st.integers(-1, 3))
def test_view_never_contains_another_players_rack(racks: list[list[str]], viewer: int) -> None:
    s = state(board("5E CAT"), racks=["".join(r) for r in racks], bag="XYZ")
    seen = view(s, viewer if viewer >= 0 else None)
    if 0 <= viewer < len(racks):
        assert seen.rack == s.racks[viewer]
    else:
        assert seen.rack is None
    assert seen.racks is None
    assert seen.bag is None
    assert seen.rack_sizes == tuple(len(r) for r in racks)
    assert seen.bag_count == 3
    fields = {f.name for f in dataclasses.fields(seen)}
    assert "racks" in fields
    assert "bag" in fields


def test_spectator_sees_board_scores_and_counts() -> None:
    s = state(board("5E CAT"), racks=("ABCDEFG", "HIJKLMN"), scores=(6, 0))
    seen = view(s, None)
    assert seen.board == s.board
    assert seen.scores == (6, 0)
    assert seen.rack is None


def test_everything_may_be_shown_after_the_end() -> None:
    s = state(board("5E CAT"), racks=("AB", "CD"), bag="")
    s, _ = run(s, Pass(0), Pass(1))
    assert view(s, None).racks == (("A", "B"), ("C", "D"))


def test_public_events_carry_no_tiles_from_racks_or_the_bag() -> None:
    created = UPWORDS.decide(
        UPWORDS.initial_state(), CreateGame(UpwordsConfig(), ("a", "b"), full_bag(), full_bag())
    )[0]
    assert isinstance(created, GameCreated)
    stripped = public_event(created)
    assert stripped.racks is None
    assert stripped.bag is None
    assert stripped.bag_count == 86
    assert secret_fields(created) == ("racks", "bag")
    s = state(board("5E CAT"), racks=("OBCDEFG", "HIJKLMN"), bag="XYZ")
    _, events = run(s, approved(s, 0, "5E (C)O(T)"), Exchange(1, "H", 0))
    for e in events:
        p = public_event(e)
        for name in secret_fields(e):
            assert getattr(p, name) is None
    drawn = next(e for e in events if isinstance(e, TilesDrawn))
    assert public_event(drawn).count == 1
    exchanged = next(e for e in events if isinstance(e, TileExchanged))
    assert public_event(exchanged) == TileExchanged(1, None, None, None)


def test_a_player_sees_their_own_draws_only() -> None:
    created = UPWORDS.decide(
        UPWORDS.initial_state(), CreateGame(UpwordsConfig(), ("a", "b"), full_bag(), full_bag())
    )[0]
    assert isinstance(created, GameCreated)
    assert created.racks is not None
    mine = event_for(created, 1)
    assert mine.racks == (None, created.racks[1])
    assert mine.bag is None
    drawn = TilesDrawn(0, 2, ("A", "B"))
    assert event_for(drawn, 0) == drawn
    assert event_for(drawn, 1).drawn is None
    assert event_for(drawn, None).drawn is None


def test_the_contract_shows_an_exchanger_their_tiles_but_no_one_where_one_went_in_the_bag() -> None:
    exchanged = TileExchanged(1, "Q", "E", 7)
    assert ENGINE.public_event(exchanged, 1) == TileExchanged(1, "Q", "E", None)
    assert ENGINE.public_event(exchanged, 0) == TileExchanged(1, None, None, None)
    assert ENGINE.public_event(exchanged, None) == TileExchanged(1, None, None, None)
