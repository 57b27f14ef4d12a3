"""Bot seats: ``bot:best`` plays the highest-scoring play, ``bot:random`` any legal play.

A bot sees only its own seat's view; its strategy is the rules' (``parlor.rules.upwords.bot``:
when to challenge or accept, which plays to offer, which to play); this asks the dictionary.
Its word graph is built once per process (ENABLE by default, about 2 s) off the event loop,
the first time a bot moves. The dictionary service still judges the bot's words like
anyone's: a bot offers its best ``BOT_CANDIDATES`` plays in one batch and plays the first
whose words are all valid.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Callable
from dataclasses import dataclass

from parlor.gamehost.botwords import built_index
from parlor.gamehost.once import BuiltOnce
from parlor.gamehost.words import Dictionary
from parlor.kit.settings import setting
from parlor.rules import upwords as uw
from parlor.rules.upwords import verdicts
from parlor.rules.upwords.bot import (
    BotPlay,
    UpwordsBot,
    answer_pending,
    candidates,
    checked_words,
    chosen_play,
)


@dataclass(frozen=True)
class BotSettings:
    words: str = setting(
        "PARLOR_UPWORDS_BOT_WORDS",
        "word list file the Upwords bots play from (empty: the packaged ENABLE list)",
        "",
    )


class Bots:
    """Moves for bot seats; the word graph is shared by every bot of the process."""

    def __init__(self, words_file: str = "") -> None:
        self.words_file = words_file
        self._bot = BuiltOnce(functools.partial(built_index, UpwordsBot, words_file))

    async def bot(self) -> UpwordsBot:
        return await self._bot.get()

    async def candidates(
        self, game: uw.UpwordsState, seat: int, level: str, rng: random.Random
    ) -> list[BotPlay]:
        """The plays the bot offers the dictionary (a search of seconds: off the event loop)."""
        return await asyncio.to_thread(
            candidates, await self.bot(), uw.view(game, seat), level, rng
        )


async def challenge(
    dictionary: Dictionary,
    game: uw.UpwordsState,
    seat: int,
    remaining: Callable[[], float | None] = lambda: None,
) -> uw.Command:
    """A challenge of the pending play, with the dictionary's verdicts on its words."""
    challenge = uw.Challenge(seat, {})
    return await dictionary.attach(verdicts, game.config.lexicon, game, challenge, remaining)


async def bot_move(
    bots: Bots,
    dictionary: Dictionary,
    game: uw.UpwordsState,
    seat: int,
    level: str,
    rng: random.Random,
    insert_position: int,
) -> uw.Command:
    """A bot's command: challenge a doubtful pending play, else its best valid play."""
    answer = answer_pending(await bots.bot(), game, seat)
    if isinstance(answer, uw.Challenge):
        return await challenge(dictionary, game, seat)
    if answer is not None:
        return answer
    plays = await bots.candidates(game, seat, level, rng)
    formed = checked_words(game, seat, plays)
    asked = [w for words in formed or () for w in words]
    verdicts = await dictionary.verdicts(game.config.lexicon, asked) if asked else {}
    return chosen_play(game, seat, plays, formed, verdicts, insert_position)
