"""Any registered game on the platform, known only as the platform knows every game.

The conformance run (``tests/integration/test_conformance.py``) drives each game through its
registered value (``GameType``: name, seat range, bots, codec, decider, views, notation) and
its gRPC service's descriptors, never through a game's own module: the game types installed
under ``parlor.game_types`` and the tic-tac-toe example (``kits.example``), each served on
real PostgreSQL and NATS with the relay and the services it calls (the word games' dictionary).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pool
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from kits.example import registered, tictactoe_on_path
from kits.ports import restartable_port as free_port
from parlor.gamehost.pipeline.games import GameType, games
from parlor.kit import client
from parlor.kit.auth import AuthSettings, issue_token
from parlor.kit.main import available
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import ServerSettings, running

EXAMPLES = ("tictactoe",)
"""Games registered by packages outside the installed platform (``examples/``)."""

PLATFORM_RPCS = frozenset({"CreateGame", "AbortGame", "BerserkGame"})
"""The RPCs that act on a game for every game alike: every other RPC whose request carries a
``command_id`` is one of the game's own moves (its wire's table)."""


def registered_names() -> list[str]:
    """Every game the conformance run covers, by name (known at collection)."""
    return sorted({*games(), *EXAMPLES})


@contextlib.contextmanager
def game_type(name: str, tmp: Path) -> Iterator[tuple[GameType[Any, Any, Any], list[Any]]]:
    """The registered game ``name`` and the component factories that serve it."""
    installed = available()
    if name in installed:
        yield games()[name], [installed[name]]
        return
    with tictactoe_on_path(tmp):
        importlib.invalidate_caches()
        yield registered("parlor.game_types"), [registered("parlor.services")]


@dataclass
class Served:
    """One game's service on a running platform, as any client sees it."""

    game: GameType[Any, Any, Any]
    service: ServiceDescriptor
    target: str
    auth: AuthSettings
    components: tuple[str, ...]

    def channel(self, player_id: str, *, service: bool = False) -> Any:
        roles, audience = (("service",), self.components) if service else ((), ())
        token = issue_token(self.auth, player_id, player_id.title(), roles, audience=audience)
        return client.channel(self.target, token)

    def method(self, name: str) -> MethodDescriptor:
        return self.service.methods_by_name[name]

    def request(self, name: str, **fields: Any) -> Message:
        """A request of the RPC ``name`` with ``fields`` set (those its message has)."""
        message = GetMessageClass(self.method(name).input_type)()
        for key, value in fields.items():
            if key not in message.DESCRIPTOR.fields_by_name:
                continue
            target = getattr(message, key)
            if isinstance(value, list):
                target.extend(value)
            else:
                setattr(message, key, value)
        return message

    def moves(self) -> list[MethodDescriptor]:
        """The game's own move RPCs, from its service's descriptor."""
        return [
            m
            for m in self.service.methods
            if "command_id" in m.input_type.fields_by_name and m.name not in PLATFORM_RPCS
        ]


async def unary(channel: Any, method: MethodDescriptor, request: Message) -> Any:
    """Call a unary RPC by its descriptor; the reply decoded as its message."""
    reply = GetMessageClass(method.output_type)
    call = channel.unary_unary(
        f"/{method.containing_service.full_name}/{method.name}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=reply.FromString,
    )
    return await call(request, timeout=90)


async def stream(channel: Any, method: MethodDescriptor, request: Message) -> list[Any]:
    """Every item of a server stream, to its end."""
    reply = GetMessageClass(method.output_type)
    call = channel.unary_stream(
        f"/{method.containing_service.full_name}/{method.name}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=reply.FromString,
    )
    return [item async for item in call(request, timeout=120)]


@contextlib.asynccontextmanager
async def serving(
    game: GameType[Any, Any, Any], factories: list[Any], auth: AuthSettings
) -> AsyncIterator[Served]:
    """The game's service (its component runs the relay too) and the services it calls, on
    one server whose port is chosen first (the word games find the dictionary on it)."""
    installed = available()
    port = free_port()
    everything = [*factories, *(installed[c] for c in game.calls)]
    settings = ServerSettings(host="127.0.0.1", port=port, metrics_port=0, grace_seconds=2)
    no_limit = RateLimitSettings(per_second=0, burst=1)
    saved = os.environ.get("PARLOR_DICTIONARY_TARGET")
    os.environ["PARLOR_DICTIONARY_TARGET"] = f"127.0.0.1:{port}"
    try:
        async with running(settings, everything, auth, no_limit) as server:
            service = descriptor_pool.Default().FindServiceByName(game.service)
            names = tuple(c.name for c in server.components)
            yield Served(game, service, f"127.0.0.1:{port}", auth, names)
    finally:
        if saved is None:
            os.environ.pop("PARLOR_DICTIONARY_TARGET", None)
        else:
            os.environ["PARLOR_DICTIONARY_TARGET"] = saved


def view_leaves(value: object, path: str = "") -> dict[str, object]:
    """Every text and every sequence of scalars in a rules' view (dataclasses, tuples,
    mappings), by path."""
    found: dict[str, object] = {}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            found |= view_leaves(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            found |= view_leaves(item, f"{path}[{key!r}]")
    elif isinstance(value, (tuple, list, frozenset, set)):
        items = list(value)
        if items and all(isinstance(i, (str, int)) for i in items):
            found[path] = tuple(sorted(str(i) for i in items))
        for i, item in enumerate(items):
            found |= view_leaves(item, f"{path}[{i}]")
    elif isinstance(value, str):
        found[path] = value
    return found


def hidden_from(engine: Any, state: object, seats: int) -> set[object]:
    """What some seat's view of ``state`` shows and the view of no seat does not (racks, a
    hand, the bag): texts of 3 characters and more, sequences of 2 items and more."""
    public = set(view_leaves(engine.view(state, None)).items())
    hidden: set[object] = set()
    for seat in range(seats):
        for path, value in view_leaves(engine.view(state, seat)).items():
            if (path, value) in public:
                continue
            if (isinstance(value, str) and len(value) >= 3) or (
                isinstance(value, tuple) and len(value) >= 2
            ):
                hidden.add(value)
    return hidden - {v for _, v in public}


def message_leaves(message: Message) -> set[object]:
    """Every text and every repeated scalar field (as a sorted tuple of its items as text) of a
    protobuf message, nested messages included, and of repeated messages each scalar field
    across the items."""
    found: set[object] = set()
    for field, value in message.ListFields():
        if field.type == field.TYPE_MESSAGE:
            items = list(value) if field.is_repeated else [value]
            for item in items:
                found |= message_leaves(item)
            if field.is_repeated and items:  # a hand of tiles: their ids, their letters
                for sub in items[0].DESCRIPTOR.fields:
                    if sub.type != sub.TYPE_MESSAGE and not sub.is_repeated:
                        found.add(tuple(sorted(str(getattr(i, sub.name)) for i in items)))
        elif field.is_repeated:
            found.add(tuple(sorted(str(i) for i in value)))
        elif isinstance(value, str):
            found.add(value)
    return found


def leaks(message: Message, hidden: set[object]) -> set[object]:
    """What of ``hidden`` ``message`` shows: a field equal to it, or a text containing it."""
    shown = message_leaves(message)
    texts = [s for s in shown if isinstance(s, str)]
    return {h for h in hidden if h in shown or (isinstance(h, str) and any(h in t for t in texts))}
