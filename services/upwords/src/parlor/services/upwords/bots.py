"""Bot seats: ``bot:best`` plays the highest-scoring play, ``bot:random`` any legal play.

A bot sees only its own seat's view; its strategy is the rules' (``parlor.rules.upwords.bot``).
Its word graph is built once per process (ENABLE by default, about 2 s) off the event loop,
the first time a bot moves. The dictionary service still judges the bot's words like
anyone's: a bot offers its best ``BOT_CANDIDATES`` plays in one batch and plays the first
whose words are all valid.
"""

from __future__ import annotations

import asyncio
import functools
import random
from dataclasses import dataclass

from parlor.gamehost.once import BuiltOnce
from parlor.gamehost.words import Dictionary
from parlor.kit.settings import setting
from parlor.lexicon import enable1, load_lexicon
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import BotPlay, UpwordsBot, first_valid, no_valid_play

BEST = "best"
RANDOM = "random"
LEVELS = frozenset({BEST, RANDOM})
BOT_CANDIDATES = 24
"""Plays a bot offers the dictionary at once; the first all-valid one is played."""


@dataclass(frozen=True)
class BotSettings:
    words: str = setting(
        "PARLOR_UPWORDS_BOT_WORDS",
        "word list file the Upwords bots play from (empty: the packaged ENABLE list)",
        "",
    )


@functools.cache
def _graph(words_file: str) -> UpwordsBot:
    """One word graph per word list per process, however many services start."""
    lexicon = load_lexicon(words_file) if words_file else enable1()
    return UpwordsBot(lexicon.words())


class Bots:
    """Moves for bot seats; the word graph is shared by every bot of the process."""

    def __init__(self, words_file: str = "") -> None:
        self.words_file = words_file
        self._bot = BuiltOnce(functools.partial(_graph, words_file))

    async def bot(self) -> UpwordsBot:
        return await self._bot.get()

    async def alternatives(self, seen: uw.PlayerView) -> list[BotPlay]:
        """Every play the bot sees, best first (for when the dictionary refuses its first)."""
        bot = await self.bot()
        if seen.rack is None:
            return []
        plays = await asyncio.to_thread(
            bot.plays, seen.board, seen.rack, plural_rule=seen.config.plural_rule
        )
        return [BotPlay(p.placements, p.score) for p in plays]

    async def doubts(self, words: tuple[str, ...]) -> tuple[str, ...]:
        """Words the bot would challenge: those missing from its own word list."""
        return (await self.bot()).doubts(words)


async def challenge(
    dictionary: Dictionary, game: uw.UpwordsState, seat: int, deadline: float | None = None
) -> uw.Command:
    """A challenge of the pending play, with the dictionary's verdicts on its words."""
    words = uw.pending_words(game)
    if words and game.pending is not None and game.pending.seat != seat:
        verdicts = await dictionary.verdicts(game.config.lexicon, words, deadline)
    else:
        verdicts = {}  # the engine refuses: nothing to challenge, or one's own play
    return uw.Challenge(seat, verdicts)


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
    pending = game.pending
    if pending is not None and pending.seat != seat:
        if await bots.doubts(pending.words):
            return await challenge(dictionary, game, seat)
        if game.pending_is_final():
            return uw.AcceptPlay(seat)
    seen = uw.view(game, seat)
    candidates = await bots.alternatives(seen)
    if level != BEST:
        rng.shuffle(candidates)
    candidates = candidates[:BOT_CANDIDATES]
    if candidates and game.config.word_checking is not uw.WordChecking.AUTO:
        return uw.Play(seat, candidates[0].placements)
    formed = [uw.words_formed(game, uw.Play(seat, c.placements)) for c in candidates]
    asked = [w for words in formed for w in words]
    verdicts = await dictionary.verdicts(game.config.lexicon, asked) if asked else {}
    chosen = first_valid(seat, candidates, formed, verdicts)
    return chosen if chosen is not None else no_valid_play(seen, seat, insert_position)
