"""Bot seats: ``bot:best`` plays the highest-scoring play, ``bot:random`` any legal play.

A bot sees only its own seat's view. Its word graph is built once per process
(ENABLE by default, about 2 s) off the event loop, the first time a bot moves.
The dictionary service still judges the bot's words like anyone's.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass

from parlor.kit.settings import setting
from parlor.lexicon import enable1, load_lexicon
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import BotPlay, UpwordsBot

BEST = "best"
RANDOM = "random"
LEVELS = frozenset({BEST, RANDOM})


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
        self._bot: UpwordsBot | None = None
        self._lock = asyncio.Lock()

    async def bot(self) -> UpwordsBot:
        async with self._lock:
            if self._bot is None:
                self._bot = await asyncio.to_thread(_graph, self.words_file)
            return self._bot

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
