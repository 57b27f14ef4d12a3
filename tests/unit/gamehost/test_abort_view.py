"""An aborted game's ``Game`` message, for every game's proto alike (``show_aborted``)."""

from __future__ import annotations

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.gamehost.wire.aborts import show_aborted
from parlor.takefour.v1 import takefour_pb2 as tf
from parlor.upwords.v1 import upwords_pb2 as uw


def test_an_aborted_game_shows_no_result_and_no_one_to_move() -> None:
    seats = [common_pb2.Seat(index=0, player_id="ann"), common_pb2.Seat(index=1, player_id="bob")]
    connect = c4.Game(seats=seats, status=c4.STATUS_IN_PROGRESS, seats_to_move=[1])
    connect.legal_moves.append("df")
    words = uw.Game(seats=seats, status=uw.STATUS_IN_PROGRESS, seats_to_move=[0])
    tiles = tf.Game(seats=[tf.SeatView(), tf.SeatView()], phase=tf.PHASE_PLAYING)
    tiles.seats_to_move.extend([0, 1])
    for game in (connect, words, tiles):
        show_aborted(game)
        assert game.aborted
        assert not game.seats_to_move
    assert connect.status == c4.STATUS_ABORTED
    assert not connect.legal_moves
    assert list(connect.departures) == ["ABORTED", "ABORTED"] == list(words.departures)
    assert connect.end_reason == "ABORTED" == words.end_reason
    assert words.status == uw.STATUS_ENDED
    assert tiles.phase == tf.PHASE_OVER
