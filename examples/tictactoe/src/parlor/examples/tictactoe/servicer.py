"""Tic-tac-toe's gRPC service: its one move RPC; the rest is the game host's ``GameService``."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any

from parlor.examples.tictactoe import rules as ttt
from parlor.examples.tictactoe.codec import Event, game_event_pb, game_pb
from parlor.gamehost import Recorded
from parlor.gamehost.codec import event_info
from parlor.gamehost.export import with_seat_tags
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import BotCommand, GameService
from parlor.tictactoe.v1 import tictactoe_pb2 as pb
from parlor.tictactoe.v1 import tictactoe_pb2_grpc as pb_grpc

T3Table = Table[ttt.State]


class TicTacToeServicer(GameService[T3Table, Event], pb_grpc.TicTacToeServiceServicer):
    pb = pb
    bot_levels = ("random",)

    def game_message(
        self, game_id: str, version: int, table: T3Table, viewer: int | None, everything: bool
    ) -> pb.Game:
        return game_pb(game_id, version, table)

    def event_message(
        self,
        recorded: Recorded[Event],
        before: T3Table | None,
        viewer: int | None,
        everything: bool,
    ) -> pb.GameEvent:
        return game_event_pb(recorded.event, event_info(recorded))

    async def create_command(
        self, config: Any, seats: tuple[Seat, ...], deadline: float | None
    ) -> ttt.CreateGame:
        return ttt.CreateGame()

    def export_message(
        self, game_id: str, table: T3Table, events: Sequence[Event]
    ) -> pb.ExportGameResponse:
        moves = (ttt.format_square(e.square) for e in events if isinstance(e, ttt.MarkPlaced))
        return pb.ExportGameResponse(text=with_seat_tags(table.seats, [" ".join(moves)]))

    def bot_to_move(self, table: T3Table) -> int | None:
        seats = ttt.ENGINE.to_move(table.game)
        return seats[0] if seats and table.seats[seats[0]].is_bot else None

    def bot_command(self, seat: int, level: str) -> BotCommand:
        async def move(table: T3Table) -> ttt.Command:
            return random.Random(secrets.randbits(64)).choice(
                ttt.ENGINE.legal_moves(table.game, seat)
            )

        return move

    async def PlayMove(self, request: pb.PlayMoveRequest, context: Any) -> pb.PlayMoveResponse:
        square = ttt.parse_square(request.move)
        return await self.move(
            request, lambda table, seat: ttt.Place(seat, square), pb.PlayMoveResponse
        )
