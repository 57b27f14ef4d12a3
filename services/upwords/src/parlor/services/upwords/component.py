"""The Upwords service as a component: its servicer built from the game's value and its wire
(``wire.servicer``), in the word games' set-up (a dictionary client)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from parlor.directory.projection import Directory
from parlor.gamehost.component import Served
from parlor.gamehost.wordgame import word_game_component
from parlor.gamehost.words import Dictionary, DictionarySettings
from parlor.kit.server import Component
from parlor.kit.settings import load, setting
from parlor.services.upwords.game import GAME
from parlor.services.upwords.game import standings as standings
from parlor.services.upwords.wire import servicer

rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


@dataclass(frozen=True)
class BotSettings:
    words: str = setting(
        "PARLOR_UPWORDS_BOT_WORDS",
        "word list file the Upwords bots play from (empty: the packaged ENABLE list)",
        "",
    )


@contextlib.asynccontextmanager
async def upwords() -> AsyncIterator[Component]:
    words = load(BotSettings).words

    def serve(host: Any, directory: Directory, dictionary: Dictionary) -> Served:
        return Served(servicer(host, dictionary, bot_words=words, directory=directory))

    # racks, bag stay home
    async with word_game_component(GAME, load(DictionarySettings), serve) as component:
        yield component
