"""Which games wait for a player, soonest first: from each game's view alone."""

from __future__ import annotations

import datetime as dt

from parlor.cli.turns import ordered, waiting_of
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def game(game_id: str, to_move: int, hours: int | None) -> pb.Game:
    view = pb.Game(
        game_id=game_id,
        version=3,
        seats=[common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")],
        seats_to_move=[to_move],
    )
    clock = view.clocks.seats.add(seat=to_move, running=hours is not None)
    if hours is not None:
        clock.deadline.FromDatetime(T0 + dt.timedelta(hours=hours))
    return view


def test_your_turn_first_then_the_earliest_deadline() -> None:
    games = [
        waiting_of("connect4x4", game("late", 0, 30), "ada"),
        waiting_of("connect4x4", game("theirs", 1, 1), "ada"),
        waiting_of("connect4x4", game("untimed", 0, None), "ada"),
        waiting_of("connect4x4", game("soon", 0, 2), "ada"),
    ]
    assert [w.game_id for w in ordered(games)] == ["soon", "late", "untimed", "theirs"]
    assert games[1].my_turn is False
    assert games[1].deadline == T0 + dt.timedelta(hours=1)  # the game's next deadline
    assert games[3].deadline == T0 + dt.timedelta(hours=2)
