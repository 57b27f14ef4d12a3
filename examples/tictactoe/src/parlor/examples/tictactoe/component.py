"""Tic-tac-toe as a platform component: the game host's set-up around its servicer."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.examples.tictactoe.game import GAME
from parlor.examples.tictactoe.servicer import TicTacToeServicer
from parlor.gamehost.component import game_component
from parlor.kit.server import Component


@contextlib.asynccontextmanager
async def tictactoe() -> AsyncIterator[Component]:
    async with game_component(GAME, TicTacToeServicer) as component:  # tic-tac-toe hides nothing
        yield component
