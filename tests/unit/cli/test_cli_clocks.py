"""`parlor play` shows each seat's time left before asking for a move."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from parlor.cli.clocks import clock_line
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_a_timed_game_shows_each_seats_time_and_whose_clock_runs() -> None:
    game = pb.Game(
        seats=[
            common_pb2.Seat(index=0, display_name="Ann"),
            common_pb2.Seat(index=1, display_name="Bob"),
        ]
    )
    game.clocks.time_control.CopyFrom(
        common_pb2.TimeControl(
            kind=common_pb2.TimeControl.KIND_FISCHER, initial_seconds=300, increment_seconds=3
        )
    )
    ann = game.clocks.seats.add(seat=0, running=True)
    ann.remaining.FromTimedelta(timedelta(seconds=300))
    ann.deadline.FromDatetime(NOW + timedelta(seconds=292))
    bob = game.clocks.seats.add(seat=1)
    bob.remaining.FromTimedelta(timedelta(seconds=303))
    assert clock_line(game, NOW) == "clock 5+3: Ann 4:52 (running), Bob 5:03"


def test_an_untimed_game_shows_no_clock() -> None:
    assert clock_line(pb.Game()) == ""
