"""The gRPC face of Upwords: its moves and pictures; the rest is the game host's.

Every response is built for its caller: their own rack and draws, counts for
everyone else's, until the game ends (then everything). Words are checked by
the dictionary service in one batch per command, inside it, so the verdicts are
about the very state the command is decided on (``WordGameService``). ``GameService``
(libs/gamehost) serves create, get, history, watch, list, replay and export from the
game's declaration (``GAME``: its create and opening shuffle are the rules',
``parlor.rules.upwords.hosting``); the bots' strategy is the rules' (``parlor.rules.upwords.bot``),
played here on the service's word graph and the dictionary's verdicts.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.gamehost import GameHost
from parlor.gamehost.botwords import built_index
from parlor.gamehost.directory import Directory
from parlor.gamehost.seating import Table
from parlor.gamehost.service import Move
from parlor.gamehost.thinking import think
from parlor.gamehost.turns import BotCommand, Bots
from parlor.gamehost.wordgame import WordGameService
from parlor.gamehost.words import Dictionary
from parlor.rules import upwords as uw
from parlor.rules.upwords import notation, verdicts
from parlor.rules.upwords.bot import Offer, UpwordsBot, bot_turn
from parlor.services.upwords.codec import Event, game_event_pb, game_pb
from parlor.services.upwords.game import GAME
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

UpwordsTable = Table[uw.UpwordsState]
UpwordsHost = GameHost[UpwordsTable, Any, Event]


def _meant_play(request: pb.ChallengeRequest | pb.AcceptPlayRequest, table: UpwordsTable) -> None:
    """A challenge or accept naming a play (``play``) other than the one pending is stale."""
    uw.check_meant_play(table.game, request.play)


def thought_turn(
    words_file: str, game: uw.UpwordsState, seat: int, level: str, seed: int
) -> uw.Challenge | uw.AcceptPlay | Offer:
    """A bot's turn as a bot worker thinks it (``thinking``): from the worker's own word
    graph of ``words_file``, built there once, never sent to it; ``seed`` draws its choices
    (a level below ``best`` plays at random)."""
    bot = built_index(UpwordsBot, words_file)
    return bot_turn(bot, game, seat, level, random.Random(seed))


def insert_position(rng: random.Random, game: uw.UpwordsState) -> int:
    """Where a returned tile goes into the bag: uniformly at random (``rng``: a secure one)."""
    positions = uw.exchange_positions(game)
    return rng.randrange(positions) if positions > 0 else 0


class UpwordsBots(Bots):
    """``bot:best`` plays its highest-scoring valid play, ``bot:random`` any: each seeing
    only its seat's view, from its own word graph of ``words_file`` (built once per process,
    about 2 s, the first time a bot moves), in the process's bot workers (``thinking``: off
    the event loop and its GIL). The dictionary judges a bot's words like anyone's: it offers
    its best ``BOT_CANDIDATES`` plays in one batch and plays the first valid. Its answer to a
    pending play is made on the very state it is decided on, so it always means the play
    pending then and names none (``play`` is for callers from outside)."""

    def __init__(self, dictionary: Dictionary, words_file: str, rng: random.Random) -> None:
        super().__init__(GAME.hosting)
        self.dictionary, self.words_file, self.random = dictionary, words_file, rng

    def command(self, seat: int, level: str) -> BotCommand:
        async def command(table: UpwordsTable) -> uw.Command:
            game, seed = table.game, self.random.getrandbits(64)
            turn = await think(thought_turn, self.words_file, game, seat, level or "best", seed)
            lexicon = game.config.lexicon
            if not isinstance(turn, Offer):
                return await self.dictionary.attach(verdicts, lexicon, game, turn, lambda: None)
            found = await self.dictionary.verdicts(lexicon, turn.words) if turn.words else {}
            return turn.chosen(game, seat, found, insert_position(self.random, game))

        return command


class UpwordsServicer(WordGameService[UpwordsTable, Event], pb_grpc.UpwordsServiceServicer):
    game = GAME
    word_checks = verdicts
    Pass = Move(lambda request, table, seat: uw.Pass(seat))
    # Both name the play they mean (``play``): refused if another is pending (PLAY_CHANGED).
    AcceptPlay = Move(lambda request, table, seat: uw.AcceptPlay(seat), _meant_play)
    Resign = Move(lambda request, table, seat: uw.Resign(seat))
    Challenge = Move(  # the verdicts go in as the pipeline builds it
        lambda request, table, seat: uw.Challenge(seat, {}), _meant_play
    )

    def __init__(
        self,
        host: UpwordsHost,
        dictionary: Dictionary,
        *,
        bot_words: str = "",
        directory: Directory | None = None,
    ) -> None:
        """``bot_words``: the word list file the bots play from (empty: the packaged ENABLE)."""
        super().__init__(host, dictionary, directory)
        self.random = secrets.SystemRandom()
        self.bots = UpwordsBots(dictionary, bot_words, self.random)

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

    # -- moves -------------------------------------------------------------------------------

    async def Play(self, request: pb.PlayRequest, context: Any) -> pb.PlayResponse:
        placed = [(p.row, p.col, p.tile) for p in request.placements]
        play = notation.play_of(placed, request.move)

        def build(table: UpwordsTable, seat: int) -> uw.Play:
            notation.check_kept(table.game.board, play.kept)
            return uw.Play(seat, play.placements)  # every board rule first, then one batch

        return await self.move(request, build, pb.PlayResponse, asks=True, context=context)

    async def Exchange(self, request: pb.ExchangeRequest, context: Any) -> pb.ExchangeResponse:
        tile = notation.tile_of(request.tile)
        if tile not in uw.DISTRIBUTION:
            raise InvalidArgument(f"{request.tile!r} is not an Upwords tile", reason="UNKNOWN_TILE")

        return await self.move(
            request,
            lambda table, seat: uw.Exchange(seat, tile, insert_position(self.random, table.game)),
            pb.ExchangeResponse,
        )
