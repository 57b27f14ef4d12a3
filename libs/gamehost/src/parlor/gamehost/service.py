"""What every game's gRPC service answers alike, written once.

``GameService`` serves ``CreateGame``, ``GetGame`` (now or at a version), ``GetHistory``,
``WatchGame``, ``ListGames``, ``ReplayGame`` and ``ExportGame`` for any game, gives the
pipeline its ``Opener`` (a ``MatchFormed``'s game) and its bots' turns, each under a
platform command id (``parlor:bot-<version>``). A game's servicer is built, not subclassed,
from the game's value (``game``: the ``GameType``, whose engine says whose turn it is and
what a viewer may see of an event) and its wire module's ``Wire`` (its pictures and a table
of move RPC -> command body)::

    WIRE = Wire(game_pb, game_event_pb, {"PlayMove": Move(lambda request, table, seat: ...)})
    servicer = GameService(host, game=GAME, wire=WIRE)

A word game's is given its dictionary client too (``dictionary``), a game with bots of its
own its ``bots``; every game's is built so, none subclasses it.

Its create, its opening and its bots are the game's value (``GAME.hosting``), which the
``Opener`` and ``bots`` play. A move RPC is declared (``Move``): how its request
becomes the seat's command, and the check of the state it is decided on; ``GameService``
serves it. Every message type is the game's own (``self.pb.GetGameResponse``,
``PlayMoveResponse`` for ``PlayMove`` ...): the protos give every game the same request and
response fields for these RPCs.

Who sees what is decided here, once, for every game (``replay.entitlement``): after the
end everyone sees everything; before it, a player sees their own seat's view and a
spectator the public one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from functools import cached_property, partial
from types import ModuleType
from typing import Any, Generic, TypeVar, cast

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument, NotFound
from parlor.gamehost.aborts import AbortLedger, AbortSettings, show_aborted
from parlor.gamehost.clocks import Abort, Berserk, Preempted, Timed, set_clocks
from parlor.gamehost.codec import event_info, seat_pb
from parlor.gamehost.command import Answer, Body, Check, Command, expires_in
from parlor.gamehost.consent import create_consent
from parlor.gamehost.directory import SEATS_TAKEN, GameList
from parlor.gamehost.export import export_parts, with_seat_tags
from parlor.gamehost.games import GameType
from parlor.gamehost.host import GameHost, Outcome, Recorded
from parlor.gamehost.listing import list_games
from parlor.gamehost.matches import recorded_match
from parlor.gamehost.myturn import list_my_turn_first
from parlor.gamehost.opener import Opener, Settle
from parlor.gamehost.opengames import Claims, OpenGamesSettings
from parlor.gamehost.pipeline import Pipeline
from parlor.gamehost.privacy import Privacy, unknown_game
from parlor.gamehost.queue import GameQueue
from parlor.gamehost.replay import check_seen, entitlement, play_back
from parlor.gamehost.seating import (
    TABLE_EVENTS,
    GameFinished,
    Seat,
    Table,
    is_bot_account,
)
from parlor.gamehost.timecontrol import TimeControl
from parlor.gamehost.turns import Bots, Exports
from parlor.gamehost.views import ViewCache
from parlor.gamehost.wire import Move, MoveRPC, Wire
from parlor.gamehost.words import Dictionary, WordAnswers
from parlor.kit import auth
from parlor.kit.fingerprint import request_fingerprint
from parlor.kit.settings import load

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")
R = TypeVar("R")

log = logging.getLogger("parlor.gamehost.service")
MAX_PRIVACY_KEPT = 10_000
"""Games whose ``privacy`` a service keeps read (all forgotten when full)."""

MAX_HISTORY_PAGE = 1000
"""The most events one ``GetHistory`` response holds (its ``page_size``; 0 means this):
a longer range is answered a page at a time (``next_from_version``)."""


def viewer_seat(table: Table[Any], identity: auth.Identity) -> int | None:
    """The caller's first seat in the game (None: a spectator)."""
    mine = table.seats_of(identity.player_id)
    return mine[0] if mine else None


def requested_seat(request: Any) -> int | None:
    """The seat a move request names, if it names one (a player holding several)."""
    return int(request.seat) if request.HasField("seat") else None


def _has(message: Any, field: str) -> bool:
    """Whether ``message`` has ``field`` set (False if its type has no such field)."""
    return field in message.DESCRIPTOR.fields_by_name and bool(message.HasField(field))


def deadline(context: Any) -> float | None:
    """The caller's deadline in seconds, passed on to the dictionary."""
    try:
        left = context.time_remaining()
    except (AttributeError, RuntimeError):
        return None
    return float(left) if left is not None else None


class GameService(Generic[T, E]):
    """The RPCs every game has, built from the game's value and its ``Wire``; a word game's
    given its dictionary client (``dictionary``: ``words.WordAnswers`` of the game's declared
    ``words``), a game with bots of its own given them (``bots``: Upwords')."""

    matched_game_wait = 5.0
    """Seconds ``GetGame`` and ``WatchGame`` wait for a game matchmaking has formed and this
    service has not created yet (``once_created``), before ``NOT_FOUND``."""

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
        self.game = game
        """The game's declaration (``parlor.services.<game>.game.GAME``)."""
        self.wire = wire
        for name, declared in wire.moves.items():
            setattr(self, name, self._move_rpc(name, declared))
        self.host = host
        self.directory = directory
        self.queue = queue
        self.words: WordAnswers | None = None
        """A word game's outside answers (its lexicon's id, the verdicts on its words)."""
        if dictionary is not None:
            if game.words is None:
                raise TypeError(f"{game.name} declares no words for a dictionary to judge")
            self.words = WordAnswers(dictionary, game.words)
        if bots is not None:
            self.bots = bots
        self.open_games: Claims | None = open_games if open_games is not None else directory
        """Where a creator's unfinished games are counted (``opengames``; None: not counted)."""
        self.max_open_games = (
            load(OpenGamesSettings).max_per_player if max_open_games is None else max_open_games
        )
        """``PARLOR_MAX_OPEN_GAMES_PER_PLAYER``: the unfinished games a ``CreateGame`` caller
        may hold (0: no cap)."""
        self.abort_settings = load(AbortSettings)
        """``PARLOR_ABORT_WINDOW_SECONDS`` and ``PARLOR_ABORTS_PER_DAY`` (``aborts``)."""
        self._views: ViewCache[Message] = ViewCache()
        self._privacy: dict[str, tuple[Privacy, tuple[str, ...]]] = {}

    @property
    def pb(self) -> ModuleType:
        """The game's ``_pb2`` module: its requests, responses, ``Game`` and ``GameEvent``."""
        assert self.game.proto is not None, f"{self.game.name} declares no proto"
        return self.game.proto

    @property
    def bot_levels(self) -> tuple[str, ...]:
        """The bot names a seat may hold (``bot:<level>``): the declared ones, weakest first."""
        return tuple(dict.fromkeys(self.game.bots))

    @property
    def default_time_control(self) -> TimeControl:
        """The game type's default (``GameType.default_time_control``) for games with people."""
        return self.game.default_time_control

    # -- pictures ---------------------------------------------------------------------------

    def game_message(
        self, game_id: str, version: int, table: T, viewer: int | None, everything: bool
    ) -> Message:
        """The game at ``version`` as ``viewer`` sees it (``everything``: the game is over),
        clocks in, built once per version and viewer for every reply and watcher. A game
        that hides nothing shows every viewer the same picture (built for viewer None)."""
        if not self.game.hides:
            viewer, everything = None, False

        def build() -> Message:
            game = self.wire.game(game_id, version, table, viewer, everything)
            if table.aborted:
                show_aborted(game)
            return set_clocks(game, self.clocks(table))

        if not self.wire.view_cache:
            return build()
        return self._views.get(game_id, version, viewer, everything, build)

    def shown(self, event: E, viewer: int | None) -> E:
        """What ``viewer`` may see of ``event`` during play: the engine's ``public_event``
        (the platform's own events, seats and finish, are everyone's)."""
        if isinstance(event, TABLE_EVENTS):
            return event
        return cast(E, self.game.engine.public_event(event, viewer))

    def seen(self, event: E, viewer: int | None, everything: bool) -> E:
        """``event`` whole once everything is shown (the game is over), else ``shown``."""
        return event if everything else self.shown(event, viewer)

    def event_message(
        self, recorded: Recorded[E], before: T, viewer: int | None, everything: bool
    ) -> Message:
        """One ``GameEvent`` as ``viewer`` may see it; ``before`` is the game before it (in a
        move's reply, as the host's records hold it: ``Recorded.before``); a wire that
        redacts its own events (``Wire.seen_event``) is given the event whole."""
        if self.wire.seen_event is not None:
            return self.wire.seen_event(recorded.event, event_info(recorded), viewer, everything)
        assert self.wire.event is not None
        return self.wire.event(
            self.seen(recorded.event, viewer, everything), event_info(recorded), before
        )

    def export_text(self, table: T, moves: Sequence[Any]) -> str | Sequence[str]:
        """The record of a game's own events in its notation (for ``export_message``): one
        text, or its lines; the game's declared notation (``GameType.notation``)."""
        if self.game.notation is None:
            raise NotImplementedError(f"{self.game.name} declares no notation")
        return self.game.notation(moves)

    def export_message(self, game_id: str, table: T, events: Sequence[E]) -> Message:
        """The ``ExportGameResponse`` of a game, if its proto has the RPC: the seat tags,
        then ``export_text`` of its events without the platform's (seats, finish); the
        seats too where the response has them (Connect 4x4's). A game that writes its whole
        export itself (``turns.Exports``: Take Four's) is given its events, the seat tags and
        how it finished; its text goes under ``notation`` too where the response has it
        (the field's first name, for older clients)."""
        if isinstance(self.game.hosting, Exports):
            own, tags, finished = export_parts(events)
            text = self.game.hosting.export(game_id, table.game, own, tags, finished)
            return self._response("ExportGameResponse", text=text, notation=text)
        moves = [e for e in events if not isinstance(e, TABLE_EVENTS)]
        record = self.export_text(table, moves)
        text = with_seat_tags(table.seats, [record] if isinstance(record, str) else record)
        response = self.pb.ExportGameResponse(text=text)
        if "seats" in response.DESCRIPTOR.fields_by_name:
            response.seats.extend(seat_pb(i, s) for i, s in enumerate(table.seats))
        return response  # type: ignore[no-any-return]

    # -- shared helpers --------------------------------------------------------------------

    def over(self, table: T) -> bool:
        return self.host.decider.is_terminal(table)

    # -- clocks ----------------------------------------------------------------------------

    def clocks(self, table: T, as_of: Any = None) -> common_pb2.Clocks:
        """The game's clocks (``Seated.clocks``): as of its last event, or ``as_of``."""
        return self.host.decider.clocks(table, as_of)

    def with_clocks(self, game: Any, table: T, as_of: Any = None) -> Any:
        """``game`` (a ``Game`` message) with the clocks of ``table`` in it."""
        return set_clocks(game, self.clocks(table, as_of))

    def _response(self, name: str, **fields: Any) -> Any:
        cls = getattr(self.pb, name)
        known = cls.DESCRIPTOR.fields_by_name
        return cls(**{k: v for k, v in fields.items() if k in known})

    async def events_seen(
        self, game_id: str, first: int, last: int, viewer: int | None, everything: bool
    ) -> list[Message]:
        """Events ``first..last`` as ``viewer`` sees them, each with the game before it."""
        if last < first:
            return []
        out: list[Message] = []
        async with contextlib.aclosing(self.host.replayed(game_id, first, last)) as records:
            async for recorded in records:
                out.append(self.event_message(recorded, recorded.before, viewer, everything))
        return out

    def check_bots(self, seats: Sequence[Seat]) -> None:
        for seat in seats:
            if seat.is_bot and seat.bot_level not in self.bot_levels:
                raise InvalidArgument(
                    f"unknown bot {seat.player_id!r}; bots are "
                    + ", ".join(f"bot:{level}" for level in self.bot_levels),
                    reason="UNKNOWN_BOT_LEVEL",
                )

    # -- creating --------------------------------------------------------------------------

    async def CreateGame(self, request: Any, context: Any) -> Any:
        me = auth.caller()
        seats = tuple(
            Seat(s.player_id, s.display_name or _name(s.player_id, me), is_bot_account(s.player_id))
            for s in request.seats
        )
        self.check_bots(seats)
        game_id = request.game_id or secrets.token_hex(16)
        requested = request.time_control if _has(request, "time_control") else None
        control = self.opener.time_control(requested, seats)
        consent = await create_consent(self.host.store, game_id, seats, me)
        privacy = Privacy.chosen(
            getattr(request, "private", False),
            [me.player_id] if getattr(request, "findable", False) else [],
        )
        command_id = request.command_id or None
        outcome = await self.opener.open(
            game_id,
            seats,
            request.config,
            command_id=command_id,
            fingerprint=request_fingerprint() if command_id is not None else None,
            actor=me.player_id,
            extra={**consent, **privacy.extra()},
            deadline=deadline(context),
            time_control=control,
            capped=me,
        )
        created, outcome = outcome, await self.pipeline.after(game_id, outcome)
        viewer, over = viewer_seat(outcome.state, me), self.over(outcome.state)
        fields: dict[str, Any] = {
            "game": self.game_message(game_id, outcome.version, outcome.state, viewer, over)
        }
        if "events" in self.pb.CreateGameResponse.DESCRIPTOR.fields_by_name:
            # What the create and what followed it appended, from their outcomes' records
            # where they hold every one (no read-back of what was just written).
            records = await self.host.recorded(game_id, 1, outcome.version, created, outcome)
            fields["events"] = self.reply_events(records, viewer, over)
        # A retried create answers with the game's invite as first made, not this call's draw.
        fields["spectator_invite"] = (await self.admit(game_id, me)).invite
        return self._response("CreateGameResponse", **fields)

    # -- reading ---------------------------------------------------------------------------

    async def admit(self, game_id: str, me: auth.Identity, invite: str = "") -> Privacy:
        """The game's ``privacy``, if ``me`` may read it; ``unknown_game`` (a missing game's
        ``GAME_NOT_FOUND``) if it is private and they are no seat, service or invitee. A game
        not created yet passes (its read then finds it missing)."""
        privacy, players = await self.privacy(game_id)
        if not privacy.admits(me, players, invite):
            raise unknown_game(self.host.category, game_id)
        return privacy

    async def privacy(self, game_id: str) -> tuple[Privacy, tuple[str, ...]]:
        """A game's choices and players, from its first event (read once: they never change)."""
        known = self._privacy.get(game_id)
        if known is not None:
            return known
        first = await self.host.store.read_stream(self.host.stream_id(game_id), 1, 1)
        if not first or first[0].type != SEATS_TAKEN:
            return Privacy(), ()
        seats = common_pb2.SeatsTaken.FromString(first[0].data).seats
        known = (Privacy.of(first[0].metadata.extra), tuple(s.player_id for s in seats))
        if len(self._privacy) >= MAX_PRIVACY_KEPT:
            self._privacy.clear()
        self._privacy[game_id] = known
        return known

    async def once_created(self, game_id: str, read: Callable[[], Awaitable[R]]) -> R:
        """``read()`` of a game; a game matchmaking has formed but this service has not
        created yet (its ``MatchFormed`` still on its way over the bus) is waited for, up to
        ``matched_game_wait`` seconds, rather than answered ``NOT_FOUND``: the players of a
        match ask for their game the moment their tickets say matched."""
        try:
            return await read()
        except NotFound as missing:
            if missing.reason != "GAME_NOT_FOUND":
                raise
            match = await recorded_match(self.host.store, game_id)
            if match is None or match.game_type != self.host.category:
                raise
            if not await self.host.created(game_id, self.matched_game_wait):
                raise
        return await read()

    async def GetGame(self, request: Any, context: Any) -> Any:
        """The game now or at a version, as the caller may see it as the game stands now."""
        me = auth.caller()
        current, now = await self.once_created(
            request.game_id, lambda: self.host.load(request.game_id)
        )
        privacy = await self.admit(request.game_id, me, _invite(request))
        if request.version and request.version != now:
            table, version = await self.host.load(request.game_id, request.version)
        else:
            table, version = current, now
        seen = entitlement(self.over(current), viewer_seat(current, me))
        game = self.game_message(request.game_id, version, table, seen.viewer, seen.everything)
        if version == now and not self.over(table) and game.HasField("clocks"):
            # A game in play now: remaining times as of this moment (a copy: pictures are
            # shared). A finished game's clocks are stopped, as of its last event.
            copy = type(game)()
            copy.CopyFrom(game)
            game = self.with_clocks(copy, table, self.host.now())
        invite = privacy.invite if current.seats_of(me.player_id) else ""
        return self._response("GetGameResponse", game=game, spectator_invite=invite)

    async def GetHistory(self, request: Any, context: Any) -> Any:
        """Events ``from_version..to_version``, at most ``page_size`` of them (at most
        ``MAX_HISTORY_PAGE``); ``next_from_version`` says where the next page starts."""
        me = auth.caller()
        size = getattr(request, "page_size", 0)
        if not 0 <= size <= MAX_HISTORY_PAGE:
            raise InvalidArgument(
                f"page_size must be 0 to {MAX_HISTORY_PAGE}",
                reason="INVALID_PAGE_SIZE",
                metadata={"field": "page_size", "limit": str(MAX_HISTORY_PAGE)},
            )
        if request.to_version and request.to_version < request.from_version:
            raise InvalidArgument("to_version comes before from_version", reason="INVALID_RANGE")
        await self.admit(request.game_id, me, _invite(request))
        current, now = await self.host.load(request.game_id)
        first = request.from_version or 1
        check_seen(request.game_id, first - 1, now)
        seen = entitlement(self.over(current), viewer_seat(current, me))
        last = min(request.to_version or now, now)
        end = min(last, first + (size or MAX_HISTORY_PAGE) - 1)
        events = await self.events_seen(request.game_id, first, end, seen.viewer, seen.everything)
        return self._response(
            "GetHistoryResponse", events=events, next_from_version=end + 1 if end < last else 0
        )

    async def WatchGame(self, request: Any, context: Any) -> AsyncIterator[Any]:
        """Every event after ``after_version`` with the game after it, live, until the end;
        an ``after_version`` the game does not have is refused (``check_seen``)."""
        me = auth.caller()
        # The game as it stands (cached, caught up with the store): who the caller is in it
        # decides what they see of every event, the past ones too.
        table, now, past, following = await self.once_created(
            request.game_id, lambda: self.host.opening(request.game_id, request.after_version)
        )
        await self.admit(request.game_id, me, _invite(request))
        check_seen(request.game_id, request.after_version, now)
        over_already = self.over(table)
        viewer = viewer_seat(table, me)

        def shown(recorded: Recorded[Any], before: T, after: T) -> Any:
            everything = over_already or self.over(after)
            return self._response(
                "WatchGameResponse",
                event=self.event_message(recorded, before, viewer, everything),
                game=self.game_message(
                    request.game_id, recorded.version, after, viewer, everything
                ),
            )

        async with contextlib.aclosing(past), contextlib.aclosing(following):
            # The events the watcher has not seen, up to now: from the nearest kept state, a
            # page at a time (``opening``), each picture built as it is sent (and shared with
            # the other watchers of that version: ``game_message``), the loop free after each.
            async for recorded in past:
                yield shown(recorded, recorded.before, recorded.after)
                if isinstance(recorded.event, GameFinished):
                    return
                await asyncio.sleep(0)
            if over_already:
                return  # a finished game has nothing more to send
            async for recorded in following:
                before, table = table, self.host.folded(recorded, table)
                if recorded.version > request.after_version:
                    yield shown(recorded, before, table)
                if isinstance(recorded.event, GameFinished):
                    return

    async def ListGames(self, request: Any, context: Any) -> Any:
        """Summaries from the game directory: seats and times only, nothing hidden; private
        games to their seats only, a player by id where they chose to be found (``privacy``)."""
        me = auth.caller()
        if getattr(request, "my_turn_first", False):  # a game's proto may predate the field
            return await list_my_turn_first(
                self.directory,
                request,
                self.pb.ListGamesResponse,
                me,
                partial(self.turn_of, me.player_id),
            )
        return await list_games(self.directory, request, self.pb.ListGamesResponse, me)

    async def turn_of(self, player_id: str, game_id: str) -> tuple[bool, datetime | None]:
        """Whether the game waits for one of ``player_id``'s seats now (its rules'
        ``to_move``), and the earliest deadline of those seats' running clocks."""
        table, _ = await self.host.load(game_id)
        if self.over(table):
            return False, None
        mine = set(table.seats_of(player_id)) & set(self.game.engine.to_move(table.game))
        if not mine:
            return False, None
        found = [
            clock.deadline.ToDatetime(UTC)
            for clock in self.clocks(table).seats
            if clock.seat in mine and clock.running and clock.HasField("deadline")
        ]
        return True, min(found) if found else None

    async def ReplayGame(self, request: Any, context: Any) -> AsyncIterator[Any]:
        """A finished game played back, everything shown (``play_back`` refuses a game in
        progress before anything is sent)."""
        me = auth.caller()
        await self.admit(request.game_id, me, _invite(request))
        async for recorded, table in play_back(
            self.host, request.game_id, request.pace_ms, request.from_version or 1
        ):
            seen = entitlement(True, viewer_seat(table, me))
            yield self._response(
                "ReplayGameResponse",
                event=self.event_message(recorded, recorded.before, seen.viewer, seen.everything),
                game=self.game_message(
                    request.game_id, recorded.version, table, seen.viewer, seen.everything
                ),
            )

    async def ExportGame(self, request: Any, context: Any) -> Any:
        await self.admit(request.game_id, auth.caller(), _invite(request))
        table, version = await self.host.load(request.game_id)
        events = (await self.host.events(request.game_id))[:version]
        return self.export_message(request.game_id, table, events)

    # -- moves -----------------------------------------------------------------------------

    @cached_property
    def bots(self) -> Bots:
        """The game's bots as the pipeline plays them (``turns.Bots``: the game's strategies;
        a service may set its own before its first command, as Upwords does)."""
        return Bots(self.game.hosting)  # a game with bots of its own gives them (``bots``)

    @cached_property
    def opener(self) -> Opener[T, E]:
        """How this service opens games (``Opener``): a ``CreateGame``'s and a match's."""
        return Opener(
            self.host,
            self.game,
            settle=self.create_answers(),
            open_games=self.open_games,
            max_open_games=self.max_open_games,
        )

    def create_answers(self) -> Settle | None:
        """What gives a create command the outside answers it needs: a word game's lexicon
        id (``WordAnswers.settled``); none for any other."""
        return None if self.words is None else self.words.settled

    @cached_property
    def pipeline(self) -> Pipeline[T, E]:
        """The game's command path (``Pipeline.handle``), given what it needs of this service
        (each looked up when used: a test may set them on a live service)."""

        async def private(game_id: str) -> bool:
            return (await self.privacy(game_id))[0].private

        return Pipeline(
            self.host,
            self.bots,
            self.opener,
            to_move=self.game.engine.to_move,
            queue=self.queue,
            private=private,
            not_found=lambda game_id: unknown_game(self.host.category, game_id),
            answer=self.outside_answers(),
            simultaneous=self.game.simultaneous,
            chance=self.game.chance,
        )

    def outside_answers(self) -> Answer | None:
        """What gives a command the outside answers it needs (``Command.asks``: every
        declared move's, a bot runner's): a word game's verdicts on the state it is decided
        on (``WordAnswers.with_verdicts``); none for any other."""
        return None if self.words is None else self.words.with_verdicts

    def _move_rpc(self, name: str, declared: Move) -> MoveRPC:
        """The wire's move ``name`` as this servicer's gRPC method of that name."""
        service = self.pb.DESCRIPTOR.services_by_name[self.game.service.rpartition(".")[2]]
        if name not in service.methods_by_name:
            raise TypeError(f"{self.game.name}: {name} is no RPC of {service.full_name}")

        async def rpc(request: Any, context: Any) -> Any:
            return await self.declared_move(declared, request, context)

        rpc.__name__ = rpc.__qualname__ = name
        return rpc

    async def declared_move(self, declared: Move, request: Any, context: Any) -> Any:
        """A declared move (``Move``) served: ``move`` with its command and check, given the
        request as its ``parse`` read it at the edge (if it has one)."""
        check, read = declared.check, request
        if declared.parse is not None:
            read = declared.parse(request)
        return await self.move(
            request,
            partial(declared.command, read),
            getattr(self.pb, f"{declared.name}Response"),
            None if check is None else partial(check, read),
            asks=True,
            context=context,
        )

    async def act(
        self,
        game_id: str,
        player_id: str,
        requested: int | None,
        build: Callable[[int], Any],
        command_id: str | None,
    ) -> tuple[Outcome[T, E], int, list[Recorded[E]]]:
        """One command, ``build(seat)``, for the player's seat, through the path of move RPCs
        (``Pipeline.handle``, with its outside answers): how a bot runner's bots act
        (``botrunner.BotService``). Returns the outcome, the seat and the events a reply
        would carry."""
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
        """A move RPC: the caller's ``Command`` for their seat (``request.seat``, if they name
        one), built here, at the edge, from the request and the interceptor's context (who
        calls, the request's fingerprint, the time they have left), then handled
        (``Pipeline.handle``); the reply ``response(game=..., events=...)``: the game after
        what followed the command and the events of both, as the caller's seat sees them
        (everything, once the game is over)."""
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
        followed, seat = handled.outcome, handled.seat
        over = self.over(followed.state)
        return response(
            game=self.game_message(request.game_id, followed.version, followed.state, seat, over),
            events=self.reply_events(handled.records, seat, over),
        )

    @cached_property
    def aborts(self) -> AbortLedger:
        """Each player's aborts, counted in the event store (``aborts``)."""
        return AbortLedger(self.host.store, self.abort_settings.per_day)

    async def AbortGame(self, request: Any, context: Any) -> Any:
        """A seat ends a game another seat has not started within the game type's window
        (``PARLOR_ABORT_WINDOW_SECONDS``), unrated (``Seated._abort_by``), through the path
        of move RPCs. An abort the rules would allow on the game as this replica
        knows it is first counted against the caller's limit (``AbortLedger.counting``:
        ``TOO_MANY_ABORTS``); any other is refused as the rules or the pipeline say, counting
        nothing (not seated, over, started, the caller's own first move awaited, not yet)."""
        me = auth.caller()
        window = float(self.abort_settings.window_seconds)

        def body(table: Any, seat: int) -> Abort:
            return Abort(seat, window)

        def abort() -> Awaitable[Any]:
            return self.move(request, body, self.pb.AbortGameResponse, context=context)

        table, _ = await self.host.latest(request.game_id)
        if not table.seats_of(me.player_id) or self.over(table):
            return await abort()
        seat = table.seat_of(me.player_id, requested_seat(request))
        try:
            self.host.decider.decide(table, Timed(body(table, seat), self.host.now()))
        except Preempted:
            return await abort()  # the timeouts due first are recorded, the abort refused
        async with self.aborts.counting(me.player_id, self.host.category, request.game_id):
            return await abort()

    async def BerserkGame(self, request: Any, context: Any) -> Any:
        """The caller's seat goes berserk before its first move (an arena's: half its clock,
        no increment; ``Seated._berserk``), through the path of move RPCs: the seat is the
        caller's own, and whether the game allows it is in its ``SeatsTaken``."""

        def body(table: Any, seat: int) -> Berserk:
            return Berserk(seat)

        return await self.move(request, body, self.pb.BerserkGameResponse, context=context)

    def reply_events(
        self, records: Sequence[Recorded[E]], viewer: int | None, everything: bool
    ) -> list[Message]:
        """A move reply's events as ``viewer`` sees them, each with the game before it as the
        command's fold left it (``Recorded.before``): no read, and no fold again."""
        return [self.event_message(r, r.before, viewer, everything) for r in records]

    # -- the platform's own turns (``Pipeline.after``) --------------------------------------

    async def aclose(self) -> None:
        """Stop the bots' pending retries (``Pipeline.aclose``)."""
        await self.pipeline.aclose()


def _name(player_id: str, me: auth.Identity) -> str:
    """A seat named by no display name: the caller's own, under the name their token carries
    (a guest's chosen name), as matchmaking seats them; any other seat under its id."""
    return me.name if player_id == me.player_id and me.name else player_id


def _invite(request: Any) -> str:
    """The spectator invite a read request names (a game's proto from before: none)."""
    return str(getattr(request, "invite", ""))
