"""The gRPC face of Connect 4x4: requests in, rule engine via the game host, views out."""

from __future__ import annotations

import random
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.core.errors import InvalidArgument, ParlorError
from parlor.gamehost import GameHost, Outcome, system_command_id
from parlor.gamehost.codec import event_info as info_pb
from parlor.gamehost.consent import create_consent
from parlor.gamehost.directory import Directory
from parlor.gamehost.listing import list_games
from parlor.gamehost.matches import from_match, match_seats
from parlor.gamehost.replay import entitlement, play_back
from parlor.gamehost.seating import GameFinished, OpenTable, Seat, Table
from parlor.kit import auth
from parlor.matchmaking.v1.events_pb2 import MatchFormed
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4 import bot
from parlor.services.connect4x4.codec import Event, config_of, game_event_pb, game_pb

C4Host = GameHost[Table[c4.State], Any, Event]
BOT_LEVELS = {level.value for level in bot.Level}
PICTURES = 4096
"""Game pictures kept for watchers and replies (the latest versions of the busiest games)."""


def viewer_seat(table: Table[c4.State], identity: auth.Identity) -> int | None:
    mine = table.seats_of(identity.player_id)
    return mine[0] if mine else None


class Connect4x4Servicer(pb_grpc.Connect4x4ServiceServicer):
    def __init__(
        self,
        host: C4Host,
        bot_budget: int = bot.DEFAULT_BUDGET,
        directory: Directory | None = None,
    ) -> None:
        self.host = host
        self.bot_budget = bot_budget
        self.directory = directory
        self._pictures: OrderedDict[tuple[str, int], pb.Game] = OrderedDict()

    def picture(self, game_id: str, version: int, table: Table[c4.State]) -> pb.Game:
        """The game at a version, built once for every watcher and reply (nothing is hidden).

        A version names one state, and Connect 4x4 shows everyone the same picture, so
        the two players' watches and the mover's reply share one message per version.
        """
        key = (game_id, version)
        found = self._pictures.get(key)
        if found is None:
            found = self._pictures[key] = game_pb(game_id, version, table, None)
            while len(self._pictures) > PICTURES:
                self._pictures.popitem(last=False)
        return found

    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
        me = auth.caller()
        seats = tuple(Seat(s.player_id, s.display_name or s.player_id) for s in request.seats)
        for seat in seats:
            if seat.is_bot and seat.bot_level not in BOT_LEVELS:
                raise InvalidArgument(
                    f"unknown bot {seat.player_id!r}; bots are "
                    + ", ".join(f"bot:{lvl}" for lvl in sorted(BOT_LEVELS)),
                    reason="UNKNOWN_BOT_LEVEL",
                )
        config = config_of(request.config)
        if request.config.players == 0:
            config = c4.Config(len(seats), config.first_seat, config.blockers_count_toward_lines)
        elif config.players != len(seats):
            raise InvalidArgument(
                f"config says {config.players} players but {len(seats)} seats are given",
                reason="INVALID_PLAYER_COUNT",
            )
        game_id = request.game_id or secrets.token_hex(16)
        consent = await create_consent(self.host.store, game_id, seats, me)
        outcome = await self.host.create(
            game_id,
            OpenTable(seats, c4.CreateGame(config)),
            command_id=request.command_id or None,
            actor=me.player_id,
            extra=consent,
        )
        outcome = await self.play_bots(game_id, outcome)
        return pb.CreateGameResponse(game=self._game(game_id, outcome, me))

    async def create_from_match(self, match: MatchFormed) -> None:
        """A matchmade game (``match`` as the store holds it): seats as matched, default rules,
        bots move at once."""
        seats = match_seats(match)
        outcome = await self.host.create(
            match.match_id,
            OpenTable(seats, c4.CreateGame(c4.Config(players=len(seats)))),
            **from_match(match),
        )
        await self.play_bots(match.match_id, outcome)

    async def PlayMove(self, request: pb.PlayMoveRequest, context: Any) -> pb.PlayMoveResponse:
        me = auth.caller()
        requested = request.seat if request.HasField("seat") else None

        async def move(table: Table[c4.State]) -> c4.Move:
            return c4.parse_move(request.move, table.seat_of(me.player_id, requested))

        outcome = await self.host.execute(
            request.game_id, move, command_id=request.command_id or None, actor=me.player_id
        )
        # A replayed command id is answered with its stored outcome even when deciding again
        # failed: only someone who holds the seat may have that answer.
        outcome.state.seat_of(me.player_id, requested)
        first = outcome.version - len(outcome.events) + 1
        outcome = await self.play_bots(request.game_id, outcome)
        events = await self.host.history(request.game_id, first, outcome.version)
        return pb.PlayMoveResponse(
            game=self._game(request.game_id, outcome, me),
            events=[game_event_pb(r.event, info_pb(r)) for r in events],
        )

    async def Resign(self, request: pb.ResignRequest, context: Any) -> pb.ResignResponse:
        me = auth.caller()
        requested = request.seat if request.HasField("seat") else None

        async def resign(table: Table[c4.State]) -> c4.Resign:
            return c4.Resign(table.seat_of(me.player_id, requested))

        outcome = await self.host.execute(
            request.game_id, resign, command_id=request.command_id or None, actor=me.player_id
        )
        outcome.state.seat_of(me.player_id, requested)  # a replayed id: see PlayMove
        outcome = await self.play_bots(request.game_id, outcome)
        return pb.ResignResponse(game=self._game(request.game_id, outcome, me))

    async def GetGame(self, request: pb.GetGameRequest, context: Any) -> pb.GetGameResponse:
        me = auth.caller()
        table, version = await self.host.load(request.game_id, request.version or None)
        return pb.GetGameResponse(
            game=game_pb(request.game_id, version, table, viewer_seat(table, me))
        )

    async def GetHistory(
        self, request: pb.GetHistoryRequest, context: Any
    ) -> pb.GetHistoryResponse:
        auth.caller()
        if request.to_version and request.to_version < request.from_version:
            raise InvalidArgument("to_version comes before from_version", reason="INVALID_RANGE")
        events = await self.host.history(
            request.game_id, request.from_version or 1, request.to_version or None
        )
        if not events and not await self.host.exists(request.game_id):
            raise self.host._not_found(request.game_id)
        return pb.GetHistoryResponse(events=[game_event_pb(r.event, info_pb(r)) for r in events])

    async def WatchGame(
        self, request: pb.WatchGameRequest, context: Any
    ) -> AsyncIterator[pb.WatchGameResponse]:
        auth.caller()
        table = self.host.decider.initial_state()
        async for recorded in self.host.watch(request.game_id):
            table = self.host.decider.evolve(table, recorded.event)
            if recorded.version > request.after_version:
                yield pb.WatchGameResponse(
                    event=game_event_pb(recorded.event, info_pb(recorded)),
                    game=self.picture(request.game_id, recorded.version, table),
                )
            if isinstance(recorded.event, GameFinished):
                return

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        auth.caller()
        return await list_games(self.directory, request, pb.ListGamesResponse)

    async def ReplayGame(
        self, request: pb.ReplayGameRequest, context: Any
    ) -> AsyncIterator[pb.ReplayGameResponse]:
        me = auth.caller()
        async for recorded, table in play_back(
            self.host, request.game_id, request.pace_ms, request.from_version or 1
        ):
            # Finished games show everything (entitlement); Connect 4x4 hides nothing anyway.
            seen = entitlement(True, viewer_seat(table, me))
            yield pb.ReplayGameResponse(
                event=game_event_pb(recorded.event, info_pb(recorded)),
                game=game_pb(
                    request.game_id,
                    recorded.version,
                    table,
                    None if seen.everything else seen.viewer,
                ),
            )

    # -- bots ------------------------------------------------------------------------------

    async def play_bots(
        self, game_id: str, outcome: Outcome[Table[c4.State], Event]
    ) -> Outcome[Table[c4.State], Event]:
        """Let bots whose turn it is move, each move its own idempotent command."""
        while True:
            table = outcome.state
            game = table.game
            if game.status is not c4.Status.IN_PROGRESS or not table.seats:
                return outcome
            seat = table.seats[game.turn]
            if not seat.is_bot:
                return outcome
            rng = random.Random(secrets.randbits(64))
            move = bot.choose_move(game, seat.bot_level or "random", rng, budget=self.bot_budget)
            try:
                outcome = await self.host.execute(
                    game_id,
                    move,
                    command_id=system_command_id("bot", outcome.version),
                    actor=seat.player_id,
                )
            except ParlorError:
                # Another replica moved for this bot first; the caller sees the latest state.
                state, version = await self.host.load(game_id)
                return Outcome(state, version, ())

    def _game(
        self, game_id: str, outcome: Outcome[Table[c4.State], Event], me: auth.Identity
    ) -> pb.Game:
        return self.picture(game_id, outcome.version, outcome.state)
