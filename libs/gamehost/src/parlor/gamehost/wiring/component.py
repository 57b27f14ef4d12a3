"""A game service as a component, set up one way from the game's declaration.

Every game service is the same around its servicer: its backends (``game_backends``: the
store (which counts its appends); the bus; the relay publishing what ``GameType.public`` lets
through), its game host, the game directory, the clock sweeper, the ``MatchFormed``
consumer, the game bells rung by other replicas' appends and its gRPC service (registered
by the proto's generated ``add_<Service>Servicer_to_server``). A game names no component
of its own: its ``Serving`` (``parlor.gamehost.wiring.serving``) makes it from the game's value
and wire, with whatever the game declares its servicer adds (its own work: ``Served``)::

    async with game_component(GAME, serve) as component:
        yield component

``extra`` holds the store (``appends``, ``conflicts``), the host and the servicer, and
whatever ``Served.extra`` adds.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc

from parlor.directory.projection import Directory, game_directory
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.host.host import GameHost
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.wire.wire import Wire
from parlor.gamehost.wiring.backends import game_backends
from parlor.kit.server import Component, GrpcService


@dataclass
class Served:
    """What a game adds to the shared set-up: its servicer, its own background work and
    what tests and tools may read of it (``Component.extra``)."""

    servicer: GameService[Any, Any]
    tasks: Sequence[Callable[[], Awaitable[None]]] = ()
    extra: dict[str, Any] = field(default_factory=dict)


Serve = Callable[[GameHost[Any, Any, Any], Directory], Served]
"""(the game's host, its directory) -> its servicer and work."""
Register = Callable[[Any, grpc.aio.Server], None]
"""The generated ``add_<Service>Servicer_to_server``."""


def generated_register(game: GameType[Any, Any, Any]) -> Register:
    """The ``add_<Service>Servicer_to_server`` generated for the game's proto service."""
    assert game.proto is not None, f"{game.name} declares no proto"
    grpc_module = importlib.import_module(f"{game.proto.__name__}_grpc")
    name = game.service.rpartition(".")[2]
    return cast(Register, getattr(grpc_module, f"add_{name}Servicer_to_server"))


def _servicer_of(game: GameType[Any, Any, Any], serve: Serve | Wire[Any, Any] | type) -> Serve:
    if isinstance(serve, Wire):
        return lambda host, directory: Served(
            GameService(host, directory=directory, game=game, wire=serve)
        )
    if isinstance(serve, type):
        servicer = serve
        return lambda host, directory: Served(servicer(host, directory=directory))
    return serve


@contextlib.asynccontextmanager
async def game_component(
    game: GameType[Any, Any, Any],
    serve: Serve | Wire[Any, Any] | type[GameService[Any, Any]],
    register: Register | None = None,
) -> AsyncIterator[Component]:
    """The component of ``game``: backends, host, directory, sweeper, matches, ringing and
    the gRPC service of the servicer ``serve`` makes (a ``Wire``: the servicer built from
    the game's value and it; a servicer class: made of the host and directory alone);
    ``register`` defaults to the proto's generated one."""
    make = _servicer_of(game, serve)
    add = register or generated_register(game)
    async with game_backends(game.category, game.public) as backends:
        store = backends.store
        host: GameHost[Any, Any, Any] = GameHost(
            game.category, game.decider, game.codec, store, deadlines=backends.deadlines
        )
        served = make(host, game_directory(store.engine, game))
        servicer = served.servicer
        async with backends.ringing(host.bells), contextlib.aclosing(servicer):
            yield Component(
                name=game.category,
                tasks=[
                    *backends.tasks(
                        servicer.pipeline.create_from_match,
                        Sweeper(host, backends.deadlines, servicer.pipeline),
                    ),
                    *served.tasks,
                ],
                ready=backends.ready,
                checks=backends.checks,
                services=[GrpcService(game.service, lambda server: add(servicer, server))],
                extra={"store": store, "host": host, "servicer": servicer, **served.extra},
            )
