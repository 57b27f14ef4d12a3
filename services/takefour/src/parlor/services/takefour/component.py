"""The Take Four service as a component: the game host's set-up, a dictionary client, a
queue per game and the bot runner."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from parlor.gamehost.component import Served, game_component
from parlor.gamehost.directory import Directory
from parlor.gamehost.queue import GameQueue
from parlor.gamehost.words import Dictionary, DictionarySettings
from parlor.kit.auth import AuthSettings
from parlor.kit.server import Component
from parlor.kit.settings import load, setting
from parlor.services.takefour.bots import BotSettings, bot_runner
from parlor.services.takefour.game import GAME
from parlor.services.takefour.game import standings as standings
from parlor.services.takefour.servicer import TakeFourHost, TakeFourServicer

rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


@dataclass(frozen=True)
class TakeFourSettings:
    queue_per_game: bool = setting(
        "PARLOR_TAKEFOUR_QUEUE_PER_GAME",
        "queue commands on one game inside a replica (false: let them race and retry conflicts)",
        True,
    )


@contextlib.asynccontextmanager
async def takefour() -> AsyncIterator[Component]:
    queue = GameQueue() if load(TakeFourSettings).queue_per_game else None
    settings = load(DictionarySettings), load(AuthSettings)
    async with Dictionary.of(*settings, GAME.name) as dictionary:

        def serve(host: TakeFourHost, directory: Directory) -> Served:
            servicer = TakeFourServicer(host, dictionary, queue, directory)
            runner = bot_runner(servicer, load(BotSettings))
            return Served(servicer, [runner.run], {"bots": runner, "dictionary": dictionary})

        async with game_component(GAME, serve) as component:  # hands, grids stay home
            yield component
