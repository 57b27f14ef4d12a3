"""Tic-tac-toe's gRPC service: its one move and its pictures; the rest is the game host's
``GameService``, from the game's declaration (``GAME``)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any

from parlor.common.v1 import common_pb2
from parlor.examples.tictactoe import rules as ttt
from parlor.examples.tictactoe.codec import Event, game_event_pb, game_pb
from parlor.examples.tictactoe.game import GAME
from parlor.gamehost.pipeline import BotCommand
from parlor.gamehost.seating import Seat, Table
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

    async def create_command(
        self, config: Any, seats: tuple[Seat, ...], deadline: float | None
    ) -> ttt.CreateGame:
        return ttt.CreateGame()

    def export_text(self, table: T3Table, moves: Sequence[Any]) -> str:
        return " ".join(ttt.format_square(e.square) for e in moves if isinstance(e, ttt.MarkPlaced))

    def bot_command(self, seat: int, level: str) -> BotCommand:
        async def move(table: T3Table) -> ttt.Command:
            return random.Random(secrets.randbits(64)).choice(
                ttt.ENGINE.legal_moves(table.game, seat)
            )

        return move
