"""Who sees what in a replay: everything after the end; before it, the viewer's own view."""

from __future__ import annotations

import pytest

from parlor.core.errors import FailedPrecondition, InvalidArgument
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable
from parlor.gamehost.wire.replay import (
    MAX_PACE_MS,
    check_pace,
    entitlement,
    entitlement_of,
    play_back,
)
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import Codec, rules


def host():  # type: ignore[no-untyped-def]
    return GameHost("connect4x4", rules(), Codec(), InMemoryEventStore())


def test_after_the_end_everyone_entitled_sees_everything() -> None:
    assert entitlement(True, None).everything
    assert entitlement(True, 1).everything


def test_before_the_end_a_viewer_sees_their_own_seats_view() -> None:
    seen = entitlement(False, 1)
    assert not seen.everything
    assert seen.viewer == 1
    assert entitlement(False, None).viewer is None


def test_pace_is_bounded() -> None:
    assert check_pace(0) == 0
    assert check_pace(MAX_PACE_MS) == MAX_PACE_MS / 1000
    with pytest.raises(InvalidArgument):
        check_pace(MAX_PACE_MS + 1)
    with pytest.raises(InvalidArgument):
        check_pace(-1)


async def test_entitlement_follows_the_game_and_the_seat() -> None:
    games = host()
    seats = (Seat("ada"), Seat("bob"))
    await games.create("g1", OpenTable(seats, c4.CreateGame(c4.Config(2))))
    ada = await entitlement_of(games, "g1", "ada")
    assert (ada.everything, ada.viewer) == (False, 0)
    carol = await entitlement_of(games, "g1", "carol")
    assert (carol.everything, carol.viewer) == (False, None)
    await games.execute("g1", c4.Resign(1))
    assert (await entitlement_of(games, "g1", "carol")).everything


async def test_only_finished_games_are_played_back() -> None:
    games = host()
    await games.create("g2", OpenTable((Seat("a"), Seat("b")), c4.CreateGame(c4.Config(2))))
    with pytest.raises(FailedPrecondition):
        async for _ in play_back(games, "g2", 0):
            pass
    await games.execute("g2", c4.DropChecker(0, 3, c4.Side.FRONT))
    await games.execute("g2", c4.Resign(0))
    steps = [(r.version, state.game.moves) async for r, state in play_back(games, "g2", 0)]
    assert [v for v, _ in steps] == [1, 2, 3, 4, 5, 6]
    assert steps[2] == (3, 1)  # the state after each event comes with it
