"""Tic-tac-toe as a platform component: its store, game host and gRPC service."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.examples.tictactoe.game import GAME
from parlor.examples.tictactoe.servicer import TicTacToeServicer
from parlor.gamehost import GameHost
from parlor.gamehost.backends import game_backends
from parlor.gamehost.directory import Directory
from parlor.kit.server import Component, GrpcService
from parlor.tictactoe.v1 import tictactoe_pb2_grpc


@contextlib.asynccontextmanager
async def tictactoe() -> AsyncIterator[Component]:
    async with game_backends(GAME.name) as backends:  # tic-tac-toe hides nothing
        host = GameHost(GAME.name, GAME.decider, GAME.codec, backends.store)
        servicer = TicTacToeServicer(host, directory=Directory(backends.store.engine, GAME.name))
        async with backends.ringing(host.doorbell):
            yield Component(
                name=GAME.name,
                tasks=backends.tasks(servicer.create_from_match),
                ready=backends.ready,
                services=[
                    GrpcService(
                        GAME.service,
                        lambda server: tictactoe_pb2_grpc.add_TicTacToeServiceServicer_to_server(
                            servicer, server
                        ),
                    )
                ],
            )
