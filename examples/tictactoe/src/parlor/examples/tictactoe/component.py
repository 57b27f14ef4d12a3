"""Tic-tac-toe as a platform component: its servicer built from the game's value and its
wire, and the game host's set-up around it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from parlor.examples.tictactoe.game import GAME
from parlor.examples.tictactoe.wire import WIRE
from parlor.gamehost.component import game_component
from parlor.gamehost.service import GameService
from parlor.kit.server import Component


def servicer(host: Any, **options: Any) -> GameService[Any, Any]:
    """Tic-tac-toe's gRPC servicer on ``host`` (``GameService``'s options)."""
    return GameService(host, game=GAME, wire=WIRE, **options)


@contextlib.asynccontextmanager
async def tictactoe() -> AsyncIterator[Component]:
    async with game_component(GAME, WIRE) as component:  # tic-tac-toe hides nothing
        yield component
