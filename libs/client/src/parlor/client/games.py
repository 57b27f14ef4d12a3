"""One client for every game service, driven by the game's proto descriptor.

Every game follows one shape (docs/adding-a-game.md): ``parlor.<game>.v1.<Game>Service``
with ``CreateGame``, ``GetGame``, ``GetHistory``, ``WatchGame``, ``ListGames``,
``ReplayGame`` (and often ``ExportGame``), plus the game's own commands, each with a
``command_id``. So one :class:`GameClient` serves them all: the shared calls are
written once, a command is sent by its RPC name (``await game.command("PlaceTile",
game_id=..., tile=3, x=0, y=0)``) with its request type read from the descriptor, and
``game.stub`` is the generated stub for everything else.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import grpc
from google.protobuf.descriptor import ServiceDescriptor

from parlor.client.errors import ParlorError
from parlor.client.streams import resumed

if TYPE_CHECKING:
    from parlor.client.client import ParlorClient

S = TypeVar("S")

GAME_TYPES = ("connect4x4", "takefour", "upwords")
"""The game types this package knows by name; any other following the layout works too."""


class GameApi:
    """A game type's generated code: its ``_pb2`` module, service descriptor and stub class."""

    def __init__(self, game_type: str, pb: ModuleType, pb_grpc: ModuleType) -> None:
        services = list(pb.DESCRIPTOR.services_by_name.values())
        if len(services) != 1:
            raise ValueError(f"{pb.__name__} declares {len(services)} services, not one")
        self.game_type = game_type
        self.pb = pb
        self.service: ServiceDescriptor = services[0]
        self.stub_type: Any = getattr(pb_grpc, f"{self.service.name}Stub")

    @property
    def commands(self) -> tuple[str, ...]:
        """The RPCs that change a game: those whose request carries a ``command_id``."""
        return tuple(
            m.name
            for m in self.service.methods
            if "command_id" in m.input_type.fields_by_name and m.name != "CreateGame"
        )

    def request_type(self, method: str) -> Any:
        found = self.service.methods_by_name.get(method)
        if found is None:
            raise KeyError(f"{self.service.full_name} has no method {method!r}")
        return getattr(self.pb, found.input_type.name)


@cache
def game_api(game_type: str) -> GameApi:
    """The generated code of ``parlor.<game_type>.v1`` (KeyError if it is not installed)."""
    try:
        pb = importlib.import_module(f"parlor.{game_type}.v1.{game_type}_pb2")
        pb_grpc = importlib.import_module(f"parlor.{game_type}.v1.{game_type}_pb2_grpc")
    except ImportError:
        raise KeyError(f"no generated code for game type {game_type!r}") from None
    return GameApi(game_type, pb, pb_grpc)


def seats_of(pb: ModuleType, players: Iterable[Any]) -> list[Any]:
    """``common.v1.Seat`` messages from player ids, (id, name) pairs or Seats."""
    from parlor.common.v1 import common_pb2

    out = []
    for index, player in enumerate(players):
        if isinstance(player, common_pb2.Seat):
            out.append(player)
        elif isinstance(player, tuple):
            out.append(common_pb2.Seat(index=index, player_id=player[0], display_name=player[1]))
        else:
            out.append(common_pb2.Seat(index=index, player_id=str(player)))
    return out


class GameClient(Generic[S]):
    """The calls of one game type's service, retried when safe, errors as :class:`ParlorError`."""

    def __init__(self, client: ParlorClient, api: GameApi) -> None:
        self.client = client
        self.api = api
        self.pb = api.pb
        self.stub: S = api.stub_type(client.channel)

    @property
    def game_type(self) -> str:
        return self.api.game_type

    def _method(self, name: str) -> Any:
        return getattr(self.stub, name)

    # -- commands ------------------------------------------------------------------------------

    async def create_game(
        self, seats: Iterable[Any], *, config: Any = None, game_id: str = "", **fields: Any
    ) -> Any:
        """Create a game (the caller must sit in it); returns the ``Game`` as the caller sees it.

        Sent once: a lost reply is not retried (with ``game_id`` set, a retry would meet
        ``ALREADY_EXISTS``; read the game with :meth:`get_game` instead).
        """
        request = self.pb.CreateGameRequest(seats=seats_of(self.pb, seats), game_id=game_id)
        if config is not None:
            request.config.CopyFrom(config)
        for key, value in fields.items():
            setattr(request, key, value)
        response = await self.client.call(self._method("CreateGame"), request, idempotent=False)
        return response.game

    async def command(self, name: str, request: Any = None, /, **fields: Any) -> Any:
        """Send the command ``name`` (``"PlaceTile"``); a ``command_id`` is made if none is given.

        The command id makes retries safe: a repeat returns the first answer. The response
        is the RPC's own (``game``, and the ``events`` the command appended).
        """
        if request is None:
            request = self.api.request_type(name)(**_messages(fields))
        if not request.command_id:
            request.command_id = uuid.uuid4().hex
        return await self.client.call(self._method(name), request, idempotent=True)

    async def abort(self, game_id: str, seat: int | None = None) -> Any:
        """End a game another seat has not started (``AbortGame``), for the caller's seat
        (``seat``: which, if they hold several): when some other seat has not made its first
        move though its clock has run the game type's abort window; it ends unrated, with no
        result (``game.aborted``). Refused ``ABORT_TOO_LATE`` once every seat has moved,
        ``ABORT_OWN_FIRST_MOVE`` while the game waits for the caller's first move,
        ``ABORT_NOT_YET`` before the window (metadata ``retry_after_seconds``),
        ``TOO_MANY_ABORTS`` past the daily limit. The response is ``AbortGameResponse``
        (``game``, ``events``)."""
        fields: dict[str, Any] = {"game_id": game_id}
        if seat is not None:
            fields["seat"] = seat
        return await self.command("AbortGame", **fields)

    async def berserk(self, game_id: str, seat: int | None = None) -> Any:
        """Go berserk in an arena tournament's game (``BerserkGame``), for the caller's seat
        (``seat``: which, if they hold several), before its first move: half the clock, no
        increment, one point more for a win of at least the arena's minimum number of moves.
        Refused ``BERSERK_NOT_ALLOWED`` where the arena does not allow it (or untimed),
        ``BERSERK_TOO_LATE`` once the seat has moved, ``ALREADY_BERSERK``. The response is
        ``BerserkGameResponse`` (``game``, ``events``)."""
        fields: dict[str, Any] = {"game_id": game_id}
        if seat is not None:
            fields["seat"] = seat
        return await self.command("BerserkGame", **fields)

    # -- reading -------------------------------------------------------------------------------

    async def get_game(self, game_id: str, version: int = 0, *, invite: str = "") -> Any:
        """The game now (or at ``version``); ``invite``: a private game's spectator invite,
        for a caller who holds no seat in it."""
        request = _invited(self.pb.GetGameRequest(game_id=game_id, version=version), invite)
        return (await self.client.call(self._method("GetGame"), request, idempotent=True)).game

    async def spectator_invite(self, game_id: str) -> str:
        """A private game's spectator invite, for one of its seats to share (empty for a
        public game; a private one is NOT_FOUND to anyone else)."""
        request = self.pb.GetGameRequest(game_id=game_id)
        response = await self.client.call(self._method("GetGame"), request, idempotent=True)
        return str(getattr(response, "spectator_invite", ""))

    async def history(self, game_id: str, from_version: int = 1, *, invite: str = "") -> list[Any]:
        """Every event of the game from ``from_version`` on, a page at a time (the server
        answers at most 1,000 events a call and says where the next page starts)."""
        events: list[Any] = []
        while from_version:
            request = _invited(
                self.pb.GetHistoryRequest(game_id=game_id, from_version=from_version), invite
            )
            response = await self.client.call(self._method("GetHistory"), request, idempotent=True)
            events += response.events
            from_version = getattr(response, "next_from_version", 0)
        return events

    async def list_games(
        self,
        player_id: str = "",
        *,
        finished_only: bool = False,
        in_progress_only: bool = False,
        page_size: int = 20,
        my_turn_first: bool = False,
    ) -> list[Any]:
        """One page of the game type's games, newest first: ``player_id``'s (empty: everyone's),
        finished ones only or games in progress only (not both: ``CONFLICTING_FILTERS``).
        ``my_turn_first``: the caller's own games in progress ordered by the server, those
        waiting for their move first, earliest deadline first (each summary's ``to_move``
        and ``deadline``), then the rest."""
        request = self.pb.ListGamesRequest(
            player_id=player_id, finished_only=finished_only, page_size=page_size
        )
        if in_progress_only:  # set only when asked: a game's proto may predate the field
            request.in_progress_only = True
        if my_turn_first:
            request.my_turn_first = True
        response = await self.client.call(self._method("ListGames"), request, idempotent=True)
        return list(response.games)

    async def export(self, game_id: str, *, invite: str = "") -> str:
        """A finished game in the game's text notation (``ExportGame``'s ``text``, where the
        game has it; Take Four's also under its older name, ``notation``)."""
        if "ExportGame" not in self.api.service.methods_by_name:
            raise ParlorError(grpc.StatusCode.UNIMPLEMENTED, f"{self.game_type} has no export")
        request = _invited(self.pb.ExportGameRequest(game_id=game_id), invite)
        response = await self.client.call(self._method("ExportGame"), request, idempotent=True)
        return str(response.text)

    async def watch(
        self, game_id: str, after_version: int = 0, *, invite: str = ""
    ) -> AsyncGenerator[tuple[Any, Any], None]:
        """Every event after ``after_version`` with the game after it, then each new one.

        Ends when the game ends. A stream the server closes for idleness (``STREAM_IDLE``)
        or that breaks (``UNAVAILABLE``, retried with backoff) is opened again after the
        last event seen, so a caller sees each event once, in order.
        """
        seen = after_version

        def open_stream() -> Any:
            request = _invited(
                self.pb.WatchGameRequest(game_id=game_id, after_version=seen), invite
            )
            return self._method("WatchGame")(request, metadata=self.client.metadata, timeout=None)

        async with aclosing(resumed(open_stream, self.client.retry)) as items:
            async for item in items:
                seen = int(item.event.info.version)
                yield item.event, item.game

    async def replay(
        self, game_id: str, pace_ms: int = 0, *, invite: str = ""
    ) -> AsyncGenerator[tuple[Any, Any], None]:
        """A finished game played back, event by event with the game after it."""
        request = _invited(self.pb.ReplayGameRequest(game_id=game_id, pace_ms=pace_ms), invite)
        async with aclosing(self.client.stream(self._method("ReplayGame"), request)) as items:
            async for item in items:
                yield item.event, item.game


def _messages(fields: dict[str, Any]) -> dict[str, Any]:
    """Keyword fields as protobuf takes them (``from`` is a keyword: pass ``from_``)."""
    return {("from" if k == "from_" else k): v for k, v in fields.items()}


__all__ = ["GAME_TYPES", "GameApi", "GameClient", "game_api", "seats_of"]


def _invited(request: Any, invite: str) -> Any:
    """``request`` naming a private game's spectator invite, if one is given (a game's proto
    from before invites has no such field: a game of it is never private)."""
    if invite:
        request.invite = invite
    return request
