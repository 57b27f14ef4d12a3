"""The gRPC face of Connect 4x4: its moves and pictures; the rest is the game host's.

``GameService`` (libs/gamehost) serves create, get, history, watch, list, replay and
export, games from matches and the bots' turns, from the game's declaration (``GAME``,
whose create and bots are the rules': ``parlor.rules.connect4x4.hosting``). Nothing is
hidden, so one picture per version serves every watcher and reply.
"""

from __future__ import annotations

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.gamehost.seating import Table
from parlor.gamehost.service import GameService, Move
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.codec import Event, game_event_pb, game_pb
from parlor.services.connect4x4.game import GAME

C4Table = Table[c4.State]


class Connect4x4Servicer(GameService[C4Table, Event], pb_grpc.Connect4x4ServiceServicer):
    game = GAME
    PlayMove = Move(lambda request, table, seat: c4.parse_move(request.move, seat))
    Resign = Move(lambda request, table, seat: c4.Resign(seat))

    def build_game(
        self, game_id: str, version: int, table: C4Table, viewer: int | None, everything: bool
    ) -> pb.Game:
        return game_pb(game_id, version, table, viewer)

    def build_event(
        self, event: Event, info: common_pb2.EventInfo, before: C4Table | None
    ) -> pb.GameEvent:
        return game_event_pb(event, info)
