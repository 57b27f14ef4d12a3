"""The gRPC face of Upwords: its moves and pictures; the rest is the game host's.

Every response is built for its caller: their own rack and draws, counts for
everyone else's, until the game ends (then everything). Words are checked by
the dictionary service in one batch per play, inside the command, so the
verdicts are about the very state the play is decided on. ``GameService``
(libs/gamehost) serves create, get, history, watch, list, replay and export from the
game's declaration (``GAME``); the bots' strategy is in ``bots.py``.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.gamehost import GameHost
from parlor.gamehost.directory import Directory
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import BotCommand, GameService, Move, deadline
from parlor.gamehost.words import Dictionary
from parlor.rules import upwords as uw
from parlor.rules.upwords import notation, record, verdicts
from parlor.rules.upwords.notation import tile_of
from parlor.services.upwords.bots import Bots, bot_move, challenge
from parlor.services.upwords.codec import (
    Event,
    config_of,
    game_event_pb,
    game_pb,
)
from parlor.services.upwords.game import GAME
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

UpwordsTable = Table[uw.UpwordsState]
UpwordsHost = GameHost[UpwordsTable, Any, Event]


def shuffled_bag(rng: random.Random) -> tuple[str, ...]:
    bag = list(uw.full_bag())
    rng.shuffle(bag)
    return tuple(bag)


class UpwordsServicer(GameService[UpwordsTable, Event], pb_grpc.UpwordsServiceServicer):
    game = GAME
    create_attempts = 3  # practically never: the first-player draw ran out of tiles
    create_retry_reasons = frozenset({"DRAW_EXHAUSTED"})
    Pass = Move(lambda request, table, seat: uw.Pass(seat))
    AcceptPlay = Move(lambda request, table, seat: uw.AcceptPlay(seat))
    Resign = Move(lambda request, table, seat: uw.Resign(seat))

    def __init__(
        self,
        host: UpwordsHost,
        dictionary: Dictionary,
        bots: Bots,
        *,
        max_bot_moves: int = 500,
        directory: Directory | None = None,
    ) -> None:
        super().__init__(host, directory)
        self.dictionary = dictionary
        self.bots = bots
        self.max_bot_moves = max_bot_moves
        self.random = secrets.SystemRandom()

    # -- the game's own mapping --------------------------------------------------------------

    def build_game(
        self, game_id: str, version: int, table: UpwordsTable, viewer: int | None, everything: bool
    ) -> pb.Game:
        return game_pb(game_id, version, table, viewer, reveal=everything)

    def build_event(
        self, event: Event, info: common_pb2.EventInfo, before: UpwordsTable
    ) -> pb.GameEvent:
        """The event's notation reads the board before it."""
        return game_event_pb(event, info, before.game.board)

    def export_text(self, table: UpwordsTable, moves: Sequence[Any]) -> str:
        return record.export_game(moves)

    async def create_command(
        self, config: Any, seats: tuple[Seat, ...], deadline: float | None
    ) -> uw.CreateGame:
        """The lexicon's id recorded, both bag orders drawn from a secure source."""
        chosen = config_of(config) if config is not None else uw.UpwordsConfig()
        lexicon_id = await self.dictionary.lexicon_id(chosen.lexicon, deadline)
        players = tuple(s.player_id for s in seats)
        bags = shuffled_bag(self.random), shuffled_bag(self.random)
        return uw.CreateGame(replace(chosen, lexicon=lexicon_id), players, *bags)

    def bot_command(self, seat: int, level: str) -> BotCommand:
        async def command(table: UpwordsTable) -> uw.Command:
            return await bot_move(
                self.bots,
                self.dictionary,
                table.game,
                seat,
                level or "best",
                self.random,
                self._insert_position(table.game),
            )

        return command

    def _insert_position(self, game: uw.UpwordsState) -> int:
        """Where the returned tile goes into the bag: uniformly at random, securely."""
        positions = uw.exchange_positions(game)
        return self.random.randrange(positions) if positions > 0 else 0

    # -- moves -------------------------------------------------------------------------------

    async def Play(self, request: pb.PlayRequest, context: Any) -> pb.PlayResponse:
        placements, kept = self._placements(request)
        left = deadline(context)

        async def build(table: UpwordsTable, seat: int) -> uw.Command:
            game = table.game
            notation.check_kept(game.board, kept)
            play = uw.Play(seat, placements)  # every board rule first, then one batch
            return await self.dictionary.attach(
                verdicts, game.config.lexicon, game, play, lambda: left
            )

        return await self.move(request, build, pb.PlayResponse)

    def _placements(
        self, request: pb.PlayRequest
    ) -> tuple[tuple[uw.Placement, ...], tuple[tuple[int, int, str], ...]]:
        if request.placements and request.move:
            raise InvalidArgument(
                "give the play as placements or as a move in notation, not both",
                reason="PLAY_GIVEN_TWICE",
            )
        if request.placements:
            return (
                tuple(
                    uw.Placement(p.row, p.col, notation.tile_of(p.tile)) for p in request.placements
                ),
                (),
            )
        if not request.move.strip():
            raise InvalidArgument("a play places at least one tile", reason="NO_TILES")
        move = notation.parse_move(request.move)
        if not isinstance(move, notation.NotatedPlay):
            raise notation.unreadable("a pass or an exchange is not a play: use Pass or Exchange")
        return move.placements, move.kept

    async def Exchange(self, request: pb.ExchangeRequest, context: Any) -> pb.ExchangeResponse:
        tile = tile_of(request.tile)
        if tile not in uw.DISTRIBUTION:
            raise InvalidArgument(f"{request.tile!r} is not an Upwords tile", reason="UNKNOWN_TILE")

        return await self.move(
            request,
            lambda table, seat: uw.Exchange(seat, tile, self._insert_position(table.game)),
            pb.ExchangeResponse,
        )

    async def Challenge(self, request: pb.ChallengeRequest, context: Any) -> pb.ChallengeResponse:
        left = deadline(context)

        return await self.move(
            request,
            lambda table, seat: challenge(self.dictionary, table.game, seat, lambda: left),
            pb.ChallengeResponse,
        )
