"""The gRPC face of Take Four: its moves; everything games share is the game host's.

``GameService`` (libs/gamehost) serves create, get, history, watch, list, replay and export.

Every play command is given to the host as a coroutine function of the state: the
caller's seat is found, and the words a call needs are listed and checked (one
``CheckWords`` batch), against the very state the command is decided on; after a
conflict the host decides again from the new state, so a check is never stale.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from parlor.core.errors import FailedPrecondition, ParlorError
from parlor.gamehost import GameHost, Outcome, Recorded, system_command_id
from parlor.gamehost.codec import event_info as info_pb
from parlor.gamehost.directory import Directory
from parlor.gamehost.queue import GameQueue
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import GameService, SeatCommand
from parlor.rules import takefour as tf
from parlor.services.takefour.codec import Event, config_of, game_event_pb, game_pb
from parlor.services.takefour.game import BOT_LEVELS, GAME
from parlor.services.takefour.notation import export
from parlor.services.takefour.words import Dictionary
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

State = Table[tf.TakeFourState]
TakeFourHost = GameHost[State, Any, Event]
Build = Callable[[int], tf.TakeFourCommand]
R = TypeVar("R")


def engine_seats(seats: tuple[Seat, ...]) -> tuple[str, ...]:
    """The engine's seat names: player ids, made distinct for bots ("bot:easy/2")."""
    return tuple(f"{s.player_id}/{i}" if s.is_bot else s.player_id for i, s in enumerate(seats))


def shuffled_bag(size: int) -> tuple[int, ...]:
    """A round's bag order, drawn by the service (never by the engine) and recorded."""
    order = list(range(size))
    secrets.SystemRandom().shuffle(order)
    return tuple(order)


def check_round(game: tf.TakeFourState, meant_for: int) -> None:
    """A command naming another round than the game's is refused (it was typed for that one)."""
    if meant_for and meant_for != game.round:
        raise FailedPrecondition(
            f"this command was meant for round {meant_for}, and the game is in round"
            f" {game.round}: look at the game again",
            reason="ROUND_CHANGED",
            metadata={"round": str(game.round), "meant_for": str(meant_for)},
        )


def _letter(value: str) -> str | None:
    return value.upper() if value else None


class TakeFourServicer(GameService[State, Event], pb_grpc.TakeFourServiceServicer):
    pb = pb
    simultaneous = True
    default_time_control = GAME.default_time_control
    bot_levels = tuple(BOT_LEVELS)

    def __init__(
        self,
        host: TakeFourHost,
        dictionary: Dictionary,
        on_activity: Callable[[str, State], None] = lambda game_id, table: None,
        queue: GameQueue | None = None,
        directory: Directory | None = None,
    ) -> None:
        super().__init__(host, directory)
        self.dictionary = dictionary
        self.on_activity = on_activity
        self.queue = queue

    def turn(self, game_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """This replica's queue for the game, if it queues (else writers race and retry)."""
        return self.queue.turn(game_id) if self.queue is not None else contextlib.nullcontext()

    # -- creating ----------------------------------------------------------------------------

    def game_message(
        self, game_id: str, version: int, table: State, viewer: int | None, everything: bool
    ) -> pb.Game:
        game: pb.Game = self.with_clocks(
            game_pb(game_id, version, table, viewer, everything), table
        )
        return game

    def event_message(
        self, recorded: Recorded[Event], before: State | None, viewer: int | None, everything: bool
    ) -> pb.GameEvent:
        return game_event_pb(recorded.event, info_pb(recorded), viewer, everything)

    async def create_command(
        self, config: Any, seats: tuple[Seat, ...], deadline: float | None
    ) -> tf.CreateGame:
        """The first round is dealt at once (``after``); a match plays the default rules."""
        name = config.lexicon if config is not None else ""
        lexicon = await self.dictionary.lexicon_id(name, deadline)
        chosen = (
            config_of(config, lexicon) if config is not None else tf.TakeFourConfig(lexicon=lexicon)
        )
        return tf.CreateGame(chosen, engine_seats(seats))

    def export_message(
        self, game_id: str, table: State, events: Sequence[Event]
    ) -> pb.ExportGameResponse:
        if table.game.phase is not tf.Phase.OVER:
            raise FailedPrecondition(
                "only a finished game can be exported: the text shows every tile",
                reason="GAME_NOT_OVER",
            )
        return pb.ExportGameResponse(notation=export(game_id, table.game.config.lexicon, events))

    async def after(self, game_id: str, outcome: Outcome[State, Event]) -> Outcome[State, Event]:
        return await self.follow_up(game_id, outcome)

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
                async with self.turn(game_id):
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
        meant_for: int = 0,
    ) -> tuple[Outcome[State, Event], int, list[Recorded[Event]]]:
        """Decide one command for the caller's seat; returns the outcome, the seat, its events.

        ``meant_for`` is the round the caller meant (0: any): checked on the state decided on.
        """
        return await self.play(
            game_id,
            player_id,
            requested,
            self._checked(build, remaining),
            command_id,
            lambda table: check_round(table.game, meant_for),
        )

    def _checked(self, build: Build, remaining: Callable[[], float | None]) -> SeatCommand[State]:
        """The seat's command with the dictionary's verdicts on the very state it is decided
        on (``remaining``: the caller's time left bounds the check)."""
        return lambda table, seat: self.dictionary.attach(table.game, build(seat), remaining)

    async def _play(
        self, request: Any, context: Any, build: Build, response: Callable[..., R]
    ) -> R:
        return await self.move(
            request,
            self._checked(build, context.time_remaining),
            response,
            lambda table: check_round(table.game, request.round),
        )

    async def PlaceTile(self, request: pb.PlaceTileRequest, context: Any) -> pb.PlaceTileResponse:
        return await self._play(
            request,
            context,
            lambda seat: tf.PlaceTile(
                seat, request.tile, request.x, request.y, _letter(request.letter)
            ),
            pb.PlaceTileResponse,
        )

    async def MoveTile(self, request: pb.MoveTileRequest, context: Any) -> pb.MoveTileResponse:
        f, t = getattr(request, "from"), request.to
        return await self._play(
            request,
            context,
            lambda seat: tf.MoveTile(seat, f.x, f.y, t.x, t.y, _letter(request.letter)),
            pb.MoveTileResponse,
        )

    async def TakeBackTile(
        self, request: pb.TakeBackTileRequest, context: Any
    ) -> pb.TakeBackTileResponse:
        cell = request.cell
        return await self._play(
            request,
            context,
            lambda seat: tf.TakeBackTile(seat, cell.x, cell.y),
            pb.TakeBackTileResponse,
        )

    async def SwapJoker(self, request: pb.SwapJokerRequest, context: Any) -> pb.SwapJokerResponse:
        cell = request.cell
        return await self._play(
            request,
            context,
            lambda seat: tf.SwapJoker(seat, request.tile, cell.x, cell.y),
            pb.SwapJokerResponse,
        )

    async def CallTakeFour(
        self, request: pb.CallTakeFourRequest, context: Any
    ) -> pb.CallTakeFourResponse:
        return await self._play(request, context, tf.CallTakeFour, pb.CallTakeFourResponse)

    async def AgreeToDeal(
        self, request: pb.AgreeToDealRequest, context: Any
    ) -> pb.AgreeToDealResponse:
        return await self._play(request, context, tf.AgreeToDeal, pb.AgreeToDealResponse)

    async def WithdrawAgreement(
        self, request: pb.WithdrawAgreementRequest, context: Any
    ) -> pb.WithdrawAgreementResponse:
        return await self._play(
            request, context, tf.WithdrawAgreement, pb.WithdrawAgreementResponse
        )

    async def CallDone(self, request: pb.CallDoneRequest, context: Any) -> pb.CallDoneResponse:
        return await self._play(request, context, tf.CallDone, pb.CallDoneResponse)

    async def Leave(self, request: pb.LeaveRequest, context: Any) -> pb.LeaveResponse:
        """The seat forfeits (as a seat idle past three limits does) and the others play on."""
        return await self._play(
            request, context, lambda seat: tf.Forfeit(seat, "LEFT"), pb.LeaveResponse
        )
