"""The Take Four service as a component: the game host's set-up, a dictionary client, a
queue per game and the bot runner, with the service's settings."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from parlor.directory.projection import Directory
from parlor.gamehost.botrunner import (
    ABANDON_HELP,
    ABANDON_SECONDS,
    ALONE_HELP,
    ALONE_SECONDS,
    HUMAN_PACE_HELP,
    IDLE_HELP,
    PAUSE_HELP,
    service_runner,
)
from parlor.gamehost.component import Served
from parlor.gamehost.wordgame import word_game_component
from parlor.gamehost.words import Dictionary, DictionarySettings
from parlor.kit.server import Component
from parlor.kit.settings import load, setting
from parlor.runtime.queue import PER_GAME_HELP, GameQueue
from parlor.services.takefour.game import BOT_PACE_SECONDS, GAME, bots
from parlor.services.takefour.game import standings as standings
from parlor.services.takefour.wire import TakeFourHost, servicer

rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


@dataclass(frozen=True)
class TakeFourSettings:
    """The service's own settings: its queue (``queue.GameQueue``), its bots' pace
    (``botrunner.PaceSettings``; with a person at the table, ``BOT_PACE_SECONDS``)."""

    queue_per_game: bool = setting("PARLOR_TAKEFOUR_QUEUE_PER_GAME", PER_GAME_HELP, True)
    pause_seconds: float = setting("PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS", PAUSE_HELP, 0.5)
    idle_seconds: float = setting("PARLOR_TAKEFOUR_BOT_IDLE_SECONDS", IDLE_HELP, 1.0)
    human_pace: bool = setting("PARLOR_TAKEFOUR_BOT_HUMAN_PACE", HUMAN_PACE_HELP, True)
    alone_seconds: float = setting("PARLOR_TAKEFOUR_BOT_ALONE_SECONDS", ALONE_HELP, ALONE_SECONDS)
    abandon_seconds: float = setting(
        "PARLOR_TAKEFOUR_BOT_ABANDON_SECONDS", ABANDON_HELP, ABANDON_SECONDS
    )


@contextlib.asynccontextmanager
async def takefour() -> AsyncIterator[Component]:
    settings = load(TakeFourSettings)
    queue = GameQueue() if settings.queue_per_game else None

    def serve(host: TakeFourHost, directory: Directory, dictionary: Dictionary) -> Served:
        served = servicer(host, dictionary, directory=directory, queue=queue)
        runner = service_runner(served.pipeline, bots(), settings, paces=BOT_PACE_SECONDS)
        return Served(served, [runner.run], {"bots": runner})

    # hands, grids stay home
    async with word_game_component(GAME, load(DictionarySettings), serve) as component:
        yield component
