"""The Connect 4x4 service as a component: the game host's set-up around its servicer."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from parlor.connect4x4.v1 import connect4x4_pb2_grpc
from parlor.gamehost.component import Served, game_component
from parlor.gamehost.directory import Directory
from parlor.gamehost.host import GameHost
from parlor.kit.server import Component
from parlor.services.connect4x4.game import GAME
from parlor.services.connect4x4.servicer import Connect4x4Servicer

rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


@contextlib.asynccontextmanager
async def connect4x4() -> AsyncIterator[Component]:
    def serve(host: GameHost[Any, Any, Any], directory: Directory) -> Served:
        return Served(Connect4x4Servicer(host, directory=directory))

    register = connect4x4_pb2_grpc.add_Connect4x4ServiceServicer_to_server
    async with game_component(GAME, serve, register) as component:  # Connect 4x4 hides nothing
        yield component
