"""Upwords, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.upwords`` (every rule, in words: docs/rules/upwords.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, whose clock runs
(``timing``), how replay tools rebuild commands (``replay``) and how a game is created and
its bags drawn (``hosting``). This module adds the
event codec and what of it may be published (racks and the bag never are), the bots, the
proto and the time controls; the bots (``UpwordsBots``) play the rules' strategy
(``parlor.rules.upwords.bot``) on the service's word graph and the dictionary's verdicts.
It is registered under ``parlor.game_types`` (pyproject.toml).
"""

from __future__ import annotations

import random
from typing import Any

from parlor.gamehost.botwords import built_index
from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Table
from parlor.gamehost.thinking import think
from parlor.gamehost.timecontrol import TimeControl
from parlor.gamehost.turns import BotCommand, Bots
from parlor.gamehost.words import Dictionary
from parlor.rules import upwords as uw
from parlor.rules.upwords import hosting, record, replay, verdicts
from parlor.rules.upwords.bot import Offer, UpwordsBot, bot_turn
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.standings import standings as standings  # the component's too
from parlor.rules.upwords.timing import TIMING
from parlor.services.upwords.codec import Codec, Event, new_config, public
from parlor.upwords.v1 import upwords_pb2

UpwordsTable = Table[uw.UpwordsState]

GAME: GameType[UpwordsTable, Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    TIMING,
    upwords_pb2,
    bots=("random", "best", "best"),
    public=public,
    rules_page="docs/rules/upwords.md",
    calls=("dictionary",),
    departures=(upwords_pb2.PlayerResigned, upwords_pb2.PlayerTimedOut),
    notation=record.export_game,
    hosting=hosting.GAME,
    words=verdicts,
    config_of=new_config,
    create_attempts=3,  # practically never: the first-player draw ran out of tiles
    create_retry_reasons=frozenset({"DRAW_EXHAUSTED"}),
    default_time_control=TimeControl.fischer(600, 5),
    time_controls=(
        TimeControl.per_move(90),
        TimeControl.fischer(600, 5),
        TimeControl.fischer(1200, 10),
        TimeControl.correspondence(days=2),
    ),
)
rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


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
