"""The Connect 4x4 service as a component: its servicer built from the game's value and its
wire, and the game host's set-up around it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from parlor.gamehost.component import game_component
from parlor.gamehost.service import GameService
from parlor.kit.server import Component
from parlor.services.connect4x4.game import GAME
from parlor.services.connect4x4.wire import WIRE

rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


def servicer(host: Any, **options: Any) -> GameService[Any, Any]:
    """Connect 4x4's gRPC servicer on ``host`` (``GameService``'s options)."""
    return GameService(host, game=GAME, wire=WIRE, **options)


@contextlib.asynccontextmanager
async def connect4x4() -> AsyncIterator[Component]:
    async with game_component(GAME, WIRE) as component:  # Connect 4x4 hides nothing
        yield component
