"""The gRPC face of Connect 4x4: its moves; everything games share is the game host's.

``GameService`` (libs/gamehost) serves create, get, history, watch, list and replay, games
from matches and the bots' turns; this module adds the moves and the pictures.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any

from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.core.errors import InvalidArgument
from parlor.gamehost import GameHost, Recorded
from parlor.gamehost.codec import event_info as info_pb
from parlor.gamehost.directory import Directory
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import BotCommand, GameService
from parlor.gamehost.views import ViewCache
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4 import bot
from parlor.services.connect4x4.codec import Event, config_of, export_pb, game_event_pb, game_pb
from parlor.services.connect4x4.game import GAME

C4Table = Table[c4.State]
C4Host = GameHost[C4Table, Any, Event]


class Connect4x4Servicer(GameService[C4Table, Event], pb_grpc.Connect4x4ServiceServicer):
    pb = pb
    default_time_control = GAME.default_time_control
    bot_levels = sorted(level.value for level in bot.Level)

    def __init__(
        self,
        host: C4Host,
        bot_budget: int = bot.DEFAULT_BUDGET,
        directory: Directory | None = None,
    ) -> None:
        super().__init__(host, directory)
        self.bot_budget = bot_budget
        self._pictures: ViewCache[pb.Game] = ViewCache()

    # -- the game's own mapping --------------------------------------------------------------

    def game_message(
        self, game_id: str, version: int, table: C4Table, viewer: int | None, everything: bool
    ) -> pb.Game:
        """The game at a version, built once for every watcher and reply (nothing is hidden).

        A version names one state, and Connect 4x4 shows everyone the same picture, so
        the players' watches and the mover's reply share one message per version.
        """
        return self._pictures.get(
            game_id,
            version,
            None,
            False,
            lambda: self.with_clocks(game_pb(game_id, version, table, None), table),
        )

    def event_message(
        self,
        recorded: Recorded[Event],
        before: C4Table | None,
        viewer: int | None,
        everything: bool,
    ) -> pb.GameEvent:
        return game_event_pb(recorded.event, info_pb(recorded))

    async def create_command(
        self, config: Any, seats: tuple[Seat, ...], deadline: float | None
    ) -> c4.CreateGame:
        if config is None:
            return c4.CreateGame(c4.Config(players=len(seats)))
        chosen = config_of(config)
        if config.players == 0:
            return c4.CreateGame(
                c4.Config(len(seats), chosen.first_seat, chosen.blockers_count_toward_lines)
            )
        if chosen.players != len(seats):
            raise InvalidArgument(
                f"config says {chosen.players} players but {len(seats)} seats are given",
                reason="INVALID_PLAYER_COUNT",
            )
        return c4.CreateGame(chosen)

    def export_message(
        self, game_id: str, table: C4Table, events: Sequence[Event]
    ) -> pb.ExportGameResponse:
        return export_pb(table, events)

    def bot_to_move(self, table: C4Table) -> int | None:
        game = table.game
        if game.status is not c4.Status.IN_PROGRESS or not table.seats:
            return None
        return game.turn if table.seats[game.turn].is_bot else None

    def bot_command(self, seat: int, level: str) -> BotCommand:
        async def move(table: C4Table) -> c4.Move:
            rng = random.Random(secrets.randbits(64))
            return bot.choose_move(table.game, level or "random", rng, budget=self.bot_budget)

        return move

    # -- moves -------------------------------------------------------------------------------

    async def PlayMove(self, request: pb.PlayMoveRequest, context: Any) -> pb.PlayMoveResponse:
        return await self.move(
            request, lambda table, seat: c4.parse_move(request.move, seat), pb.PlayMoveResponse
        )

    async def Resign(self, request: pb.ResignRequest, context: Any) -> pb.ResignResponse:
        return await self.move(request, lambda table, seat: c4.Resign(seat), pb.ResignResponse)
