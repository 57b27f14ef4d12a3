"""The gRPC face of Connect 4x4: its moves and pictures; the rest is the game host's.

``GameService`` (libs/gamehost) serves create, get, history, watch, list, replay and
export, games from matches and the bots' turns, from the game's declaration (``GAME``).
Nothing is hidden, so one picture per version serves every watcher and reply.
"""

from __future__ import annotations

import functools
import random
import secrets
from dataclasses import replace
from typing import Any

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.core.errors import InvalidArgument
from parlor.gamehost.pipeline import BotCommand
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import GameService, Move
from parlor.gamehost.thinking import think
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4 import bot
from parlor.services.connect4x4.codec import Event, config_of, game_event_pb, game_pb
from parlor.services.connect4x4.game import GAME

C4Table = Table[c4.State]


class Connect4x4Servicer(GameService[C4Table, Event], pb_grpc.Connect4x4ServiceServicer):
    game = GAME
    PlayMove = Move(lambda request, table, seat: c4.parse_move(request.move, seat))
    Resign = Move(lambda request, table, seat: c4.Resign(seat))
    bot_budget = bot.DEFAULT_BUDGET

    def build_game(
        self, game_id: str, version: int, table: C4Table, viewer: int | None, everything: bool
    ) -> pb.Game:
        return game_pb(game_id, version, table, viewer)

    def build_event(
        self, event: Event, info: common_pb2.EventInfo, before: C4Table | None
    ) -> pb.GameEvent:
        return game_event_pb(event, info)

    async def create_command(
        self, config: Any, seats: tuple[Seat, ...], deadline: float | None
    ) -> c4.CreateGame:
        if config is None:
            return c4.CreateGame(c4.Config(players=len(seats)))
        chosen = config_of(config)
        if config.players == 0:
            return c4.CreateGame(replace(chosen, players=len(seats)))
        if chosen.players != len(seats):
            raise InvalidArgument(
                f"config says {chosen.players} players but {len(seats)} seats are given",
                reason="INVALID_PLAYER_COUNT",
            )
        return c4.CreateGame(chosen)

    def bot_command(self, seat: int, level: str) -> BotCommand:
        """The bot's search runs in the process's bot workers (``thinking``), never on the
        event loop: a strong bot's search of a second would stall every other caller."""

        async def move(table: C4Table) -> c4.Move:
            rng = random.Random(secrets.randbits(64))
            search = functools.partial(bot.choose_move, budget=self.bot_budget)
            return await think(search, table.game, level or "random", rng)

        return move
