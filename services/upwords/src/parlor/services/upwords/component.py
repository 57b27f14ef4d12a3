"""The Upwords service as a component: the game host's set-up, a dictionary client, bots."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from parlor.gamehost.component import Served, game_component
from parlor.gamehost.directory import Directory
from parlor.gamehost.host import GameHost
from parlor.gamehost.words import Dictionary, DictionarySettings
from parlor.kit.auth import AuthSettings
from parlor.kit.server import Component
from parlor.kit.settings import load
from parlor.services.upwords.bots import Bots, BotSettings
from parlor.services.upwords.game import GAME
from parlor.services.upwords.game import standings as standings
from parlor.services.upwords.servicer import UpwordsServicer

rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


@contextlib.asynccontextmanager
async def upwords() -> AsyncIterator[Component]:
    bots = Bots(load(BotSettings).words)
    settings = load(DictionarySettings), load(AuthSettings)
    async with Dictionary.of(*settings, GAME.name) as dictionary:

        def serve(host: GameHost[Any, Any, Any], directory: Directory) -> Served:
            return Served(UpwordsServicer(host, dictionary, bots, directory=directory))

        async with game_component(GAME, serve) as component:  # racks, bag stay home
            yield component
