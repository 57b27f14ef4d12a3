"""A game's wire as the generic servicer takes it: its pictures and its move RPCs.

A game's service module (``parlor.services.<game>.game``, beside its declaration) holds its
messages, its ``Game`` and ``GameEvent`` pictures and a table of move RPC -> ``Move``, as one
``Wire``; the game host builds the game's servicer from the game's value and it
(``GameService(host, game=GAME, wire=WIRE)``, which the module's ``Serving`` does),
subclassing nothing; every game's is built so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

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


class Move:
    """A move RPC, declared in a wire's table under the RPC's name::

        {"Resign": Move(lambda request, table, seat: c4.Resign(seat))}

    ``command(request, table, seat)`` is the seat's command, built on the state it is
    decided on (``GameService.move``); ``check(request, table)``, first, refuses one that
    state has made stale (Take Four: a command meant for another round). ``parse(request)``,
    if given, reads the request at the edge, before any game is loaded (bad input refused
    there: Upwords' placements and tiles), and ``command`` and ``check`` are given what it
    read in the request's place. The reply is the game's ``<Name>Response``; the servicer
    serves it as its method of the RPC's name.
    """

    def __init__(
        self,
        command: MoveCommand,
        check: MoveCheck | None = None,
        *,
        parse: Callable[[Any], Any] | None = None,
    ) -> None:
        self.command = command
        self.check = check
        self.parse = parse
        self.name = ""


@dataclass(frozen=True)
class Wire(Generic[T, E]):
    """A game's wire (``WIRE`` in its service module): the pictures and the move RPCs of its
    proto service.

    ``game(game_id, version, table, viewer, everything)`` is the ``Game`` message as a viewer
    sees it; ``event(event, info, before)`` one ``GameEvent``, already as the viewer may see
    it (``before``: the game before it); ``moves`` maps each move RPC's name to its ``Move``
    (the request -> the seat's command body). A game whose event picture redacts itself
    (Take Four's, through the rules' ``public_event``) gives ``seen_event(event, info,
    viewer, everything)`` instead, given the event whole. ``view_cache`` False: its ``Game``
    pictures are built per call, not kept per version and viewer (Take Four's are cheap, and
    a test switches their redaction off in a live service)."""

    game: Callable[[str, int, T, int | None, bool], Message]
    event: Callable[[E, common_pb2.EventInfo, T], Message] | None = None
    moves: Mapping[str, Move] = field(default_factory=dict)
    seen_event: Callable[[E, common_pb2.EventInfo, int | None, bool], Message] | None = None
    view_cache: bool = True

    def __post_init__(self) -> None:
        if (self.event is None) == (self.seen_event is None):
            raise TypeError("a Wire gives one of event and seen_event")
        for name, declared in self.moves.items():
            declared.name = name  # its reply is the game's ``<name>Response``
