"""The Connect 4x4 service as a component: its store, its game host, its gRPC service."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.connect4x4.v1 import connect4x4_pb2, connect4x4_pb2_grpc
from parlor.gamehost import GameHost
from parlor.gamehost.backends import game_backends
from parlor.gamehost.directory import Directory
from parlor.gamehost.seating import Seated, Standing
from parlor.kit.server import Component, GrpcService
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.codec import Codec
from parlor.services.connect4x4.servicer import Connect4x4Servicer

CATEGORY = "connect4x4"
SERVICE_NAME = connect4x4_pb2.DESCRIPTOR.services_by_name["Connect4x4Service"].full_name


def standings(state: c4.State) -> tuple[str, tuple[Standing, ...]]:
    """Winner first, everyone else second; a tie shares first place."""
    outcome = c4.result(state)
    assert outcome is not None, "standings are asked only of finished games"
    if outcome.winner is None:
        return outcome.reason, tuple(Standing(1) for _ in range(state.players))
    return outcome.reason, tuple(
        Standing(1 if seat == outcome.winner else 2) for seat in range(state.players)
    )


def rules() -> Seated[c4.State, c4.Command, c4.Event]:
    return Seated(c4.decider, 2, 4, standings)


@contextlib.asynccontextmanager
async def connect4x4() -> AsyncIterator[Component]:
    async with game_backends(CATEGORY) as backends:  # Connect 4x4 hides nothing
        host = GameHost(CATEGORY, rules(), Codec(), backends.store)
        servicer = Connect4x4Servicer(host, directory=Directory(backends.store.engine, CATEGORY))
        async with backends.ringing(host.doorbell):
            yield Component(
                name=CATEGORY,
                tasks=backends.tasks(servicer.create_from_match),
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
