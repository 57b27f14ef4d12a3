"""The gRPC face every game shares: the wire translated to the pipeline and the reads, back.

Built, not subclassed, from the game's value and its ``Wire`` (a word game's given its
``dictionary``, a game with bots of its own its ``bots``)::

    servicer = GameService(host, game=GAME, wire=WIRE)

A move RPC is the caller's ``Command``, built here at the edge, handled by the pipeline
(``Pipeline.handle``); the reply shows what the caller may see (``Pictures``). The reads are
``Reads``', ``ListGames`` the directory's; every message type is the game's own
(``PlayMoveResponse`` for ``PlayMove`` ...).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from functools import cached_property, partial
from types import ModuleType
from typing import Any, Generic, TypeVar

from parlor.admission.opengames import Claims, OpenGamesSettings
from parlor.admission.privacy import unknown_game
from parlor.directory.listed import GameList
from parlor.gamehost.host.host import GameHost, Outcome, Recorded
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.pipeline.opener import Opener
from parlor.gamehost.pipeline.pipeline import Pipeline
from parlor.gamehost.pipeline.turns import Bots
from parlor.gamehost.record.command import Body, Check, Command, expires_in
from parlor.gamehost.table.clocks import Abort, Berserk
from parlor.gamehost.table.seating import Table
from parlor.gamehost.wire.aborts import AbortLedger, AbortSettings, abort_counts
from parlor.gamehost.wire.listing import list_games
from parlor.gamehost.wire.myturn import list_my_turn_first
from parlor.gamehost.wire.pictures import Pictures
from parlor.gamehost.wire.reads import Reads, answer, viewer_seat
from parlor.gamehost.wire.wire import Move, MoveRPC, Wire
from parlor.gamehost.words.words import Dictionary, WordAnswers
from parlor.gametypes.seats import Seat, is_bot_account
from parlor.kit import auth
from parlor.kit.fingerprint import request_fingerprint
from parlor.kit.settings import load
from parlor.runtime.queue import GameQueue

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")
R = TypeVar("R")


def requested_seat(request: Any) -> int | None:
    """The seat a move request names, if it names one (a player holding several)."""
    return int(request.seat) if request.HasField("seat") else None


def deadline(context: Any) -> float | None:
    """The caller's deadline in seconds, passed on to the dictionary."""
    try:
        left = context.time_remaining()
    except (AttributeError, RuntimeError):
        return None
    return float(left) if left is not None else None


class GameService(Generic[T, E]):
    """The RPCs every game has, built from the game's value and its ``Wire``."""

    def __init__(
        self,
        host: GameHost[T, Any, E],
        directory: GameList | None = None,
        queue: GameQueue | None = None,
        *,
        game: GameType[Any, Any, Any],
        wire: Wire[T, E],
        open_games: Claims | None = None,
        max_open_games: int | None = None,
        dictionary: Dictionary | None = None,
        bots: Bots | None = None,
    ) -> None:
        """``open_games``: where a creator's unfinished games are counted (the directory),
        up to ``max_open_games`` (``PARLOR_MAX_OPEN_GAMES_PER_PLAYER``; 0: no cap)."""
        self.host, self.game, self.wire = host, game, wire
        self.directory, self.queue = directory, queue
        assert game.proto is not None, f"{game.name} declares no proto"
        self.pb: ModuleType = game.proto  # its requests, responses, Game and GameEvent
        self.bot_levels = tuple(dict.fromkeys(game.bots))  # bot:<level>, weakest first
        for name, declared in wire.moves.items():
            setattr(self, name, self._move_rpc(name, declared))
        self.words: WordAnswers | None = None
        if dictionary is not None:
            if game.words is None:
                raise TypeError(f"{game.name} declares no words for a dictionary to judge")
            self.words = WordAnswers(dictionary, game.words)
        if bots is not None:
            self.bots = bots
        self.open_games = open_games if open_games is not None else directory
        self.max_open_games = (
            load(OpenGamesSettings).max_per_player if max_open_games is None else max_open_games
        )
        self.abort_settings = load(AbortSettings)  # the window, the limit (``aborts``)
        self.aborts = AbortLedger(host.store, self.abort_settings.per_day)
        self.pictures: Pictures[T, E] = Pictures(host, game, wire)
        self.reads: Reads[T, E] = Reads(host, game, self.pictures)

    async def GetGame(self, request: Any, context: Any) -> Any:
        return await self.reads.get_game(request, auth.caller())

    async def GetHistory(self, request: Any, context: Any) -> Any:
        return await self.reads.history(request, auth.caller())

    async def WatchGame(self, request: Any, context: Any) -> AsyncIterator[Any]:
        async with contextlib.aclosing(self.reads.watch(request, auth.caller())) as stream:
            async for response in stream:
                yield response

    async def ReplayGame(self, request: Any, context: Any) -> AsyncIterator[Any]:
        async with contextlib.aclosing(self.reads.replay(request, auth.caller())) as stream:
            async for response in stream:
                yield response

    async def ExportGame(self, request: Any, context: Any) -> Any:
        return await self.reads.export(request, auth.caller())

    async def ListGames(self, request: Any, context: Any) -> Any:
        """Summaries from the game directory: seats and times only, nothing hidden; private
        games to their seats only, a player by id where they chose to be found (``privacy``)."""
        me, listed = auth.caller(), self.pb.ListGamesResponse
        if getattr(request, "my_turn_first", False):  # a game's proto may predate the field
            turn_of = partial(self.reads.turn_of, me.player_id)
            return await list_my_turn_first(self.directory, request, listed, me, turn_of)
        return await list_games(self.directory, request, listed, me)

    async def CreateGame(self, request: Any, context: Any) -> Any:
        """A game opened (``Opener``; a person seats only themselves and bots), then the
        platform's turns after it; the reply's events are from their outcomes (no read-back)."""
        me = auth.caller()
        seats = tuple(
            Seat(s.player_id, s.display_name or _name(s.player_id, me), is_bot_account(s.player_id))
            for s in request.seats
        )
        game_id, command_id = request.game_id or secrets.token_hex(16), request.command_id or None
        created = await self.opener.open_for(
            me,
            game_id,
            seats,
            request.config,
            requested=request.time_control if _has(request, "time_control") else None,
            private=getattr(request, "private", False),
            findable=getattr(request, "findable", False),
            command_id=command_id,
            fingerprint=request_fingerprint() if command_id is not None else None,
            deadline=deadline(context),
        )
        outcome, reply = await self.pipeline.after(game_id, created), self.pb.CreateGameResponse
        records: Sequence[Recorded[E]] = ()
        if "events" in reply.DESCRIPTOR.fields_by_name:  # what the create and its turns appended
            records = await self.host.recorded(game_id, 1, outcome.version, created, outcome)
        shown = self.pictures.reply(game_id, outcome, records, viewer_seat(outcome.state, me))
        # A retried create answers with the game's invite as first made, not this call's draw.
        invite = (await self.reads.admit(game_id, me)).invite
        return answer(self.pb, "CreateGameResponse", **shown, spectator_invite=invite)

    @cached_property
    def bots(self) -> Bots:
        """The game's bots as the pipeline plays them (its strategies, or its own ``bots``)."""
        return Bots(self.game.hosting)

    @cached_property
    def opener(self) -> Opener[T, E]:
        """How this service opens games (``Opener``): a ``CreateGame``'s and a match's."""
        return Opener(
            self.host,
            self.game,
            settle=None if self.words is None else self.words.settled,
            open_games=self.open_games,
            max_open_games=self.max_open_games,
        )

    @cached_property
    def pipeline(self) -> Pipeline[T, E]:
        """The game's command path (``Pipeline.handle``)."""
        return Pipeline(
            self.host,
            self.bots,
            self.opener,
            to_move=self.game.engine.to_move,
            queue=self.queue,
            private=self.reads.is_private,
            not_found=lambda game_id: unknown_game(self.host.category, game_id),
            answer=None if self.words is None else self.words.with_verdicts,
            simultaneous=self.game.simultaneous,
            chance=self.game.chance,
        )

    def _move_rpc(self, name: str, declared: Move) -> MoveRPC:
        """The wire's move ``name`` as this servicer's gRPC method of that name."""
        service = self.pb.DESCRIPTOR.services_by_name[self.game.service.rpartition(".")[2]]
        if name not in service.methods_by_name:
            raise TypeError(f"{self.game.name}: {name} is no RPC of {service.full_name}")
        response = getattr(self.pb, f"{name}Response")

        async def rpc(request: Any, context: Any) -> Any:
            # the request as the move's ``parse`` reads it at the edge, if it has one
            read = request if declared.parse is None else declared.parse(request)
            check = None if declared.check is None else partial(declared.check, read)
            body = partial(declared.command, read)
            return await self.move(request, body, response, check, asks=True, context=context)

        rpc.__name__ = rpc.__qualname__ = name
        return rpc

    async def act(
        self,
        game_id: str,
        player_id: str,
        requested: int | None,
        build: Callable[[int], Any],
        command_id: str | None,
    ) -> tuple[Outcome[T, E], int, list[Recorded[E]]]:
        """``build(seat)`` for the player's seat, as a move RPC's (``Pipeline.handle``): the
        outcome, the seat and the events a reply would carry."""
        command = Command(
            player_id, lambda table, seat: build(seat), requested, command_id, asks=True
        )
        handled = await self.pipeline.handle(game_id, command)
        return handled.outcome, handled.seat, handled.records

    async def move(
        self,
        request: Any,
        body: Body,
        response: Callable[..., R],
        check: Check | None = None,
        *,
        asks: bool = False,
        context: Any = None,
    ) -> R:
        """A move RPC: the caller's ``Command`` for their seat (``request.seat``, if named),
        of the request and the interceptor's context (caller, fingerprint, time left),
        handled (``Pipeline.handle``); the reply ``response(game=..., events=...)``: the game
        after what followed and the events of both, as the caller's seat sees them."""
        command_id = request.command_id or None
        command = Command(
            auth.caller().player_id,
            body,
            requested_seat(request),
            command_id,
            fingerprint=request_fingerprint() if command_id is not None else None,
            check=check,
            asks=asks,
            expires=expires_in(deadline(context)),
        )
        handled = await self.pipeline.handle(request.game_id, command)
        shown = self.pictures.reply(request.game_id, handled.outcome, handled.records, handled.seat)
        return response(**shown)

    async def AbortGame(self, request: Any, context: Any) -> Any:
        """A seat ends a game not started within the window, unrated; counted against the
        caller's limit only if the rules would allow it (``aborts.abort_counts``)."""
        me, window = auth.caller(), float(self.abort_settings.window_seconds)

        def body(table: Any, seat: int) -> Abort:
            return Abort(seat, window)

        game_id, seat = request.game_id, requested_seat(request)
        counted = await abort_counts(self.host, game_id, me.player_id, seat, body)
        async with (
            self.aborts.counting(me.player_id, self.host.category, game_id)
            if counted
            else contextlib.nullcontext()
        ):
            return await self.move(request, body, self.pb.AbortGameResponse, context=context)

    async def BerserkGame(self, request: Any, context: Any) -> Any:
        """The caller's seat goes berserk before its first move (an arena's: half its clock,
        no increment; ``Seated._berserk``), if its ``SeatsTaken`` allows it."""

        return await self.move(request, _berserk, self.pb.BerserkGameResponse, context=context)

    async def aclose(self) -> None:
        """Stop the bots' pending retries (``Pipeline.aclose``)."""
        await self.pipeline.aclose()


def _berserk(table: Any, seat: int) -> Berserk:
    return Berserk(seat)


def _has(message: Any, field: str) -> bool:
    """Whether ``message`` has ``field`` set (False if its type has no such field)."""
    return field in message.DESCRIPTOR.fields_by_name and bool(message.HasField(field))


def _name(player_id: str, me: auth.Identity) -> str:
    """A seat named by no display name: the caller's own, under the name their token carries
    (a guest's chosen name), as matchmaking seats them; any other seat under its id."""
    return me.name if player_id == me.player_id and me.name else player_id
