"""Tic-tac-toe's gRPC service: its one move and its pictures; the rest is the game host's
``GameService``, from the game's declaration (``GAME``: its create, bot and record are the
rules', ``rules.GAME``)."""

from __future__ import annotations

from parlor.common.v1 import common_pb2
from parlor.examples.tictactoe import rules as ttt
from parlor.examples.tictactoe.codec import Event, game_event_pb, game_pb
from parlor.examples.tictactoe.game import GAME
from parlor.gamehost.seating import Table
from parlor.gamehost.service import GameService, Move
from parlor.tictactoe.v1 import tictactoe_pb2 as pb
from parlor.tictactoe.v1 import tictactoe_pb2_grpc as pb_grpc

T3Table = Table[ttt.State]


class TicTacToeServicer(GameService[T3Table, Event], pb_grpc.TicTacToeServiceServicer):
    game = GAME
    PlayMove = Move(lambda request, table, seat: ttt.Place(seat, ttt.parse_square(request.move)))

    def build_game(
        self, game_id: str, version: int, table: T3Table, viewer: int | None, everything: bool
    ) -> pb.Game:
        return game_pb(game_id, version, table)

    def build_event(
        self, event: Event, info: common_pb2.EventInfo, before: T3Table | None
    ) -> pb.GameEvent:
        return game_event_pb(event, info)
