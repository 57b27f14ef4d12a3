"""The gRPC face of Take Four: requests in, the rule engine via the game host, per-viewer views out.

Every play command is given to the host as a coroutine function of the state: the
caller's seat is found, and the words a call needs are listed and checked (one
``CheckWords`` batch), against the very state the command is decided on; after a
conflict the host decides again from the new state, so a check is never stale.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

from parlor.core.errors import FailedPrecondition, InvalidArgument, ParlorError
from parlor.gamehost import GameHost, Outcome, Recorded, system_command_id
from parlor.gamehost.codec import event_info as info_pb
from parlor.gamehost.consent import create_consent
from parlor.gamehost.directory import Directory
from parlor.gamehost.listing import list_games
from parlor.gamehost.matches import from_match, match_seats
from parlor.gamehost.replay import entitlement, play_back
from parlor.gamehost.seating import GameFinished, OpenTable, Seat, Table
from parlor.kit import auth
from parlor.matchmaking.v1.events_pb2 import MatchFormed
from parlor.rules import takefour as tf
from parlor.services.takefour.codec import Event, config_of, game_event_pb, game_pb
from parlor.services.takefour.notation import export
from parlor.services.takefour.queue import GameQueue
from parlor.services.takefour.words import Dictionary
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

State = Table[tf.TakeFourState]
TakeFourHost = GameHost[State, Any, Event]
Build = Callable[[int], tf.TakeFourCommand]

BOT_LEVELS = {"easy": 2_000, "medium": 20_000, "hard": 100_000}
"""Bot level -> the bot's search budget (nodes per crossword build)."""


def viewer_seat(table: State, identity: auth.Identity) -> int | None:
    mine = table.seats_of(identity.player_id)
    return mine[0] if mine else None


def engine_seats(seats: tuple[Seat, ...]) -> tuple[str, ...]:
    """The engine's seat names: player ids, made distinct for bots ("bot:easy/2")."""
    return tuple(f"{s.player_id}/{i}" if s.is_bot else s.player_id for i, s in enumerate(seats))


def shuffled_bag(size: int) -> tuple[int, ...]:
    """A round's bag order, drawn by the service (never by the engine) and recorded."""
    order = list(range(size))
    secrets.SystemRandom().shuffle(order)
    return tuple(order)


def _requested(request: Any) -> int | None:
    return int(request.seat) if request.HasField("seat") else None


def _letter(value: str) -> str | None:
    return value.upper() if value else None


class TakeFourServicer(pb_grpc.TakeFourServiceServicer):
    def __init__(
        self,
        host: TakeFourHost,
        dictionary: Dictionary,
        on_activity: Callable[[str, State], None] = lambda game_id, table: None,
        queue: GameQueue | None = None,
        directory: Directory | None = None,
    ) -> None:
        self.host = host
        self.dictionary = dictionary
        self.on_activity = on_activity
        self.queue = queue
        self.directory = directory

    def _turn(self, game_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """This replica's queue for the game, if it queues (else writers race and retry)."""
        return self.queue.turn(game_id) if self.queue is not None else contextlib.nullcontext()

    # -- creating ----------------------------------------------------------------------------

    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
        me = auth.caller()
        seats = tuple(Seat(s.player_id, s.display_name or s.player_id) for s in request.seats)
        for seat in seats:
            if seat.is_bot and seat.bot_level not in BOT_LEVELS:
                raise InvalidArgument(
                    f"unknown bot {seat.player_id!r}; bots are "
                    + ", ".join(f"bot:{level}" for level in BOT_LEVELS),
                    reason="UNKNOWN_BOT_LEVEL",
                )
        game_id = request.game_id or secrets.token_hex(16)
        consent = await create_consent(self.host.store, game_id, seats, me)
        lexicon = await self.dictionary.lexicon_id(request.config.lexicon, context.time_remaining())
        config = config_of(request.config, lexicon)
        outcome = await self.host.create(
            game_id,
            OpenTable(seats, tf.CreateGame(config, engine_seats(seats))),
            command_id=request.command_id or None,
            actor=me.player_id,
            extra=consent,
        )
        outcome = await self.follow_up(game_id, outcome)
        return pb.CreateGameResponse(
            game=game_pb(game_id, outcome.version, outcome.state, viewer_seat(outcome.state, me))
        )

    async def create_from_match(self, match: MatchFormed) -> None:
        """A matchmade game (``match`` as the store holds it): seats as matched, default rules,
        the first round dealt at once."""
        seats = match_seats(match)
        lexicon = await self.dictionary.lexicon_id("")
        config = tf.TakeFourConfig(lexicon=lexicon)
        outcome = await self.host.create(
            match.match_id,
            OpenTable(seats, tf.CreateGame(config, engine_seats(seats))),
            **from_match(match),
        )
        await self.follow_up(match.match_id, outcome)

    async def follow_up(
        self, game_id: str, outcome: Outcome[State, Event]
    ) -> Outcome[State, Event]:
        """Deal the next round right after the last one is scored (or the game created).

        Its command id names the round, so the call that scored it, a retry, a bot runner
        or another replica may all try: the round starts once.
        """
        table = outcome.state
        if table.seats and table.game.phase is tf.Phase.BETWEEN_ROUNDS:
            number = table.game.round + 1

            async def start(current: State) -> tf.StartRound:
                return tf.StartRound(shuffled_bag(current.game.config.tiles.size))

            try:
                async with self._turn(game_id):
                    outcome = await self.host.execute(
                        game_id,
                        start,
                        command_id=system_command_id("round", number),
                        actor="takefour",
                    )
            except ParlorError:
                state, version = await self.host.load(game_id)
                outcome = Outcome(state, version, ())
        self.on_activity(game_id, outcome.state)
        return outcome

    # -- playing -----------------------------------------------------------------------------

    async def act(
        self,
        game_id: str,
        player_id: str,
        requested: int | None,
        build: Build,
        command_id: str | None,
        remaining: Callable[[], float | None] = lambda: None,
    ) -> tuple[Outcome[State, Event], int, list[Recorded[Event]]]:
        """Decide one command for the caller's seat; returns the outcome, the seat, its events."""
        seat_used: list[int] = []

        async def decide(table: State) -> tf.TakeFourCommand:
            seat = table.seat_of(player_id, requested)
            seat_used[:] = [seat]
            return await self.dictionary.attach(table.game, build(seat), remaining)

        async with self._turn(game_id):
            outcome = await self.host.execute(
                game_id, decide, command_id=command_id, actor=player_id
            )
        mine: list[Recorded[Event]] = []
        if outcome.events:
            first = outcome.version - len(outcome.events) + 1
            mine = await self.host.history(game_id, first, outcome.version)
        followed = await self.follow_up(game_id, outcome)
        if followed.events and followed is not outcome:
            first = followed.version - len(followed.events) + 1
            mine += await self.host.history(game_id, first, followed.version)
        seat = seat_used[0] if seat_used else outcome.state.seat_of(player_id, requested)
        return followed, seat, mine

    async def _respond(
        self, request: Any, context: Any, build: Build
    ) -> tuple[pb.Game, list[pb.GameEvent]]:
        me = auth.caller()
        outcome, seat, events = await self.act(
            request.game_id,
            me.player_id,
            _requested(request),
            build,
            request.command_id or None,
            context.time_remaining,
        )
        reveal = outcome.state.game.phase is tf.Phase.OVER
        return (
            game_pb(request.game_id, outcome.version, outcome.state, seat),
            [game_event_pb(r.event, info_pb(r), seat, reveal) for r in events],
        )

    async def PlaceTile(self, request: pb.PlaceTileRequest, context: Any) -> pb.PlaceTileResponse:
        game, events = await self._respond(
            request,
            context,
            lambda seat: tf.PlaceTile(
                seat, request.tile, request.x, request.y, _letter(request.letter)
            ),
        )
        return pb.PlaceTileResponse(game=game, events=events)

    async def MoveTile(self, request: pb.MoveTileRequest, context: Any) -> pb.MoveTileResponse:
        f, t = getattr(request, "from"), request.to
        game, events = await self._respond(
            request,
            context,
            lambda seat: tf.MoveTile(seat, f.x, f.y, t.x, t.y, _letter(request.letter)),
        )
        return pb.MoveTileResponse(game=game, events=events)

    async def TakeBackTile(
        self, request: pb.TakeBackTileRequest, context: Any
    ) -> pb.TakeBackTileResponse:
        cell = request.cell
        game, events = await self._respond(
            request, context, lambda seat: tf.TakeBackTile(seat, cell.x, cell.y)
        )
        return pb.TakeBackTileResponse(game=game, events=events)

    async def SwapJoker(self, request: pb.SwapJokerRequest, context: Any) -> pb.SwapJokerResponse:
        cell = request.cell
        game, events = await self._respond(
            request, context, lambda seat: tf.SwapJoker(seat, request.tile, cell.x, cell.y)
        )
        return pb.SwapJokerResponse(game=game, events=events)

    async def CallTakeFour(
        self, request: pb.CallTakeFourRequest, context: Any
    ) -> pb.CallTakeFourResponse:
        game, events = await self._respond(request, context, tf.CallTakeFour)
        return pb.CallTakeFourResponse(game=game, events=events)

    async def AgreeToDeal(
        self, request: pb.AgreeToDealRequest, context: Any
    ) -> pb.AgreeToDealResponse:
        game, events = await self._respond(request, context, tf.AgreeToDeal)
        return pb.AgreeToDealResponse(game=game, events=events)

    async def WithdrawAgreement(
        self, request: pb.WithdrawAgreementRequest, context: Any
    ) -> pb.WithdrawAgreementResponse:
        game, events = await self._respond(request, context, tf.WithdrawAgreement)
        return pb.WithdrawAgreementResponse(game=game, events=events)

    async def CallDone(self, request: pb.CallDoneRequest, context: Any) -> pb.CallDoneResponse:
        game, events = await self._respond(request, context, tf.CallDone)
        return pb.CallDoneResponse(game=game, events=events)

    # -- reading -----------------------------------------------------------------------------

    async def GetGame(self, request: pb.GetGameRequest, context: Any) -> pb.GetGameResponse:
        """The game now, or at a version: everything shown once the game is over (as its
        history and replay show it), the caller's own seat only before."""
        me = auth.caller()
        table, version = await self.host.load(request.game_id, request.version or None)
        over = table.game.phase is tf.Phase.OVER
        if request.version and not over:
            now, _ = await self.host.load(request.game_id)
            over = now.game.phase is tf.Phase.OVER
        seen = entitlement(over, viewer_seat(table, me))
        return pb.GetGameResponse(
            game=game_pb(request.game_id, version, table, seen.viewer, seen.everything)
        )

    async def GetHistory(
        self, request: pb.GetHistoryRequest, context: Any
    ) -> pb.GetHistoryResponse:
        me = auth.caller()
        if request.to_version and request.to_version < request.from_version:
            raise InvalidArgument("to_version comes before from_version", reason="INVALID_RANGE")
        table, _ = await self.host.load(request.game_id)
        viewer = viewer_seat(table, me)
        reveal = table.game.phase is tf.Phase.OVER
        events = await self.host.history(
            request.game_id, request.from_version or 1, request.to_version or None
        )
        return pb.GetHistoryResponse(
            events=[game_event_pb(r.event, info_pb(r), viewer, reveal) for r in events]
        )

    async def WatchGame(
        self, request: pb.WatchGameRequest, context: Any
    ) -> AsyncIterator[pb.WatchGameResponse]:
        me = auth.caller()
        table = self.host.decider.initial_state()
        async for recorded in self.host.watch(request.game_id):
            table = self.host.decider.evolve(table, recorded.event)
            if recorded.version > request.after_version:
                viewer = viewer_seat(table, me)
                reveal = table.game.phase is tf.Phase.OVER
                yield pb.WatchGameResponse(
                    event=game_event_pb(recorded.event, info_pb(recorded), viewer, reveal),
                    game=game_pb(request.game_id, recorded.version, table, viewer),
                )
            if isinstance(recorded.event, GameFinished):
                return

    async def ExportGame(
        self, request: pb.ExportGameRequest, context: Any
    ) -> pb.ExportGameResponse:
        auth.caller()
        table, _ = await self.host.load(request.game_id)
        if table.game.phase is not tf.Phase.OVER:
            raise FailedPrecondition(
                "only a finished game can be exported: the text shows every tile",
                reason="GAME_NOT_OVER",
            )
        events = [r.event for r in await self.host.history(request.game_id)]
        return pb.ExportGameResponse(
            notation=export(request.game_id, table.game.config.lexicon, events)
        )

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        """Summaries from the game directory: seats and times only, never a tile."""
        auth.caller()
        return await list_games(self.directory, request, pb.ListGamesResponse)

    async def ReplayGame(
        self, request: pb.ReplayGameRequest, context: Any
    ) -> AsyncIterator[pb.ReplayGameResponse]:
        """A finished game played back: everything shown, as ``GetHistory`` after the end.

        ``play_back`` refuses a game in progress before anything is sent, so nobody sees a
        hand early through a replay.
        """
        me = auth.caller()
        async for recorded, table in play_back(
            self.host, request.game_id, request.pace_ms, request.from_version or 1
        ):
            seen = entitlement(True, viewer_seat(table, me))
            viewer, reveal = seen.viewer, seen.everything
            yield pb.ReplayGameResponse(
                event=game_event_pb(recorded.event, info_pb(recorded), viewer, reveal),
                game=game_pb(request.game_id, recorded.version, table, viewer, reveal),
            )
