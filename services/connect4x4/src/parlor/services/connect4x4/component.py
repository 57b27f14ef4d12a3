"""The Connect 4x4 service as a component: its store, its game host, its gRPC service."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.connect4x4.v1 import connect4x4_pb2_grpc
from parlor.gamehost import GameHost
from parlor.gamehost.backends import game_backends
from parlor.gamehost.directory import Directory
from parlor.gamehost.sweeper import Sweeper
from parlor.kit.server import Component, GrpcService
from parlor.services.connect4x4.game import CATEGORY, GAME, SERVICE_NAME
from parlor.services.connect4x4.game import rules as rules
from parlor.services.connect4x4.servicer import Connect4x4Servicer


@contextlib.asynccontextmanager
async def connect4x4() -> AsyncIterator[Component]:
    async with game_backends(CATEGORY) as backends:  # Connect 4x4 hides nothing
        host = GameHost(
            CATEGORY, GAME.decider, GAME.codec, backends.store, deadlines=backends.deadlines
        )
        servicer = Connect4x4Servicer(host, directory=Directory(backends.store.engine, CATEGORY))
        async with backends.ringing(host.doorbell):
            yield Component(
                name=CATEGORY,
                tasks=backends.tasks(
                    servicer.create_from_match,
                    Sweeper(host, backends.deadlines, servicer.after),
                ),
                ready=backends.ready,
                services=[
                    GrpcService(
                        SERVICE_NAME,
                        lambda server: connect4x4_pb2_grpc.add_Connect4x4ServiceServicer_to_server(
                            servicer, server
                        ),
                    )
                ],
            )
