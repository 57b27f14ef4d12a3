"""A game's wire as the generic servicer takes it: its pictures and its move RPCs.

A game's own ``wire.py`` (beside its proto) holds its messages, its ``Game`` and
``GameEvent`` pictures and a table of move RPC -> ``Move``, as one ``Wire``; the game host
builds the game's servicer from the game's value and it (``GameService(host, game=GAME,
wire=WIRE)``), subclassing nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, overload

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2

T = TypeVar("T")
E = TypeVar("E")

MoveCommand = Callable[[Any, Any, int], Any]
"""A declared move's command: (request, table, seat) -> the seat's command (as ``SeatCommand``)."""
MoveCheck = Callable[[Any, Any], None]
"""A declared move's check: (request, table) refuses a command that state has made stale."""


class MoveRPC(Protocol):
    """A declared move as its servicer serves it: a gRPC method."""

    def __call__(self, request: Any, context: Any) -> Awaitable[Any]: ...


class Serves(Protocol):
    """A servicer serving declared moves (``GameService``)."""

    async def declared_move(self, declared: Move, request: Any, context: Any) -> Any: ...


class Move:
    """A move RPC, declared in a wire's table under the RPC's name (or, in a servicer still
    subclassing ``GameService``, in its class body)::

        {"Resign": Move(lambda request, table, seat: c4.Resign(seat))}

    ``command(request, table, seat)`` is the seat's command, built on the state it is
    decided on (``GameService.move``); ``check(request, table)``, first, refuses one that
    state has made stale (Take Four: a command meant for another round). The reply is the
    game's ``<Name>Response``. gRPC finds the method by name on the servicer, as any other.
    """

    def __init__(self, command: MoveCommand, check: MoveCheck | None = None) -> None:
        self.command = command
        self.check = check
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        if not any(callable(getattr(base, name, None)) for base in owner.__mro__[1:]):
            raise TypeError(f"{owner.__name__}.{name}: no RPC of that name in its service")
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> Move: ...

    @overload
    def __get__(self, instance: Serves, owner: type) -> MoveRPC: ...

    def __get__(self, instance: Serves | None, owner: type) -> Move | MoveRPC:
        if instance is None:
            return self

        async def rpc(request: Any, context: Any) -> Any:
            return await instance.declared_move(self, request, context)

        rpc.__name__ = rpc.__qualname__ = self.name
        return rpc


@dataclass(frozen=True)
class Wire(Generic[T, E]):
    """A game's wire (its ``wire.py``): the pictures and the move RPCs of its proto service.

    ``game(game_id, version, table, viewer, everything)`` is the ``Game`` message as a viewer
    sees it; ``event(event, info, before)`` one ``GameEvent``, already as the viewer may see
    it (``before``: the game before it); ``moves`` maps each move RPC's name to its ``Move``
    (the request -> the seat's command body)."""

    game: Callable[[str, int, T, int | None, bool], Message]
    event: Callable[[E, common_pb2.EventInfo, T], Message]
    moves: Mapping[str, Move] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, declared in self.moves.items():
            declared.name = name  # its reply is the game's ``<name>Response``
