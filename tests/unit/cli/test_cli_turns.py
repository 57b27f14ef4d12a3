"""Which games wait for a player, soonest first: the server's ``my_turn_first`` listings of
each game type, merged in the same order."""

from __future__ import annotations

import datetime as dt

from parlor.cli.turns import ordered, waiting_of
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.upwords.v1 import upwords_pb2 as uw

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def summary(module: object, game_id: str, to_move: bool, hours: int | None) -> object:
    listed = module.GameSummary(  # type: ignore[attr-defined]
        game_id=game_id,
        version=3,
        seats=[common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")],
        to_move=to_move,
    )
    if hours is not None:
        listed.deadline.FromDatetime(T0 + dt.timedelta(hours=hours))
    return listed


def test_your_turn_first_then_the_earliest_deadline_across_game_types() -> None:
    games = [  # each type's list as its server ordered it
        waiting_of("connect4x4", summary(pb, "soon", True, 2)),
        waiting_of("connect4x4", summary(pb, "untimed", True, None)),
        waiting_of("connect4x4", summary(pb, "theirs", False, None)),
        waiting_of("upwords", summary(uw, "sooner", True, 1)),
        waiting_of("upwords", summary(uw, "late", True, 30)),
    ]
    assert [w.game_id for w in ordered(games)] == ["sooner", "soon", "late", "untimed", "theirs"]
    assert games[2].my_turn is False
    assert games[0].deadline == T0 + dt.timedelta(hours=2)
    assert games[3].game_type == "upwords"
    assert games[3].players == ("ada", "bob")


def test_the_cli_says_an_aborted_game_is_over_with_no_result() -> None:
    from parlor.cli.games.connect4x4 import Connect4x4
    from parlor.gamehost.wire.aborts import show_aborted

    game = pb.Game(status=pb.STATUS_IN_PROGRESS)
    show_aborted(game)
    adapter = Connect4x4.__new__(Connect4x4)
    assert adapter.is_over(game)
    assert adapter.outcome(game) == "aborted before it started: no result"
