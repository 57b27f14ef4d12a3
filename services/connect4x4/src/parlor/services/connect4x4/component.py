"""The Connect 4x4 service as a component: the game host's set-up around its servicer."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.gamehost.component import game_component
from parlor.kit.server import Component
from parlor.services.connect4x4.game import GAME
from parlor.services.connect4x4.servicer import Connect4x4Servicer

rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


@contextlib.asynccontextmanager
async def connect4x4() -> AsyncIterator[Component]:
    async with game_component(GAME, Connect4x4Servicer) as component:  # Connect 4x4 hides nothing
        yield component
