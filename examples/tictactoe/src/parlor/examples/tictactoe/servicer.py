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
from parlor.gamehost.service import BotCommand, GameService, requested_seat
from parlor.kit import auth
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
        self, recorded: Recorded[Event], before: T3Table, viewer: int | None, everything: bool
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
        me = auth.caller()
        requested = requested_seat(request)
        square = ttt.parse_square(request.move)

        async def move(table: T3Table) -> ttt.Place:
            return ttt.Place(table.seat_of(me.player_id, requested), square)

        outcome = await self.host.execute(
            request.game_id, move, command_id=request.command_id or None, actor=me.player_id
        )
        outcome.state.seat_of(me.player_id, requested)  # a replayed command id: seat holders only
        first = outcome.version - len(outcome.events) + 1
        outcome = await self.after(request.game_id, outcome)
        return pb.PlayMoveResponse(
            game=game_pb(request.game_id, outcome.version, outcome.state),
            events=[
                game_event_pb(r.event, event_info(r))
                for r in await self.host.history(request.game_id, first, outcome.version)
            ],
        )
