"""The gRPC face of Take Four: its moves and pictures; the rest is the game host's.

``GameService`` (libs/gamehost) serves create, get, history, watch, list, replay and
export from the game's declaration (``GAME``); Take Four's bots are a runner's (``bots.py``).

Every play command is given to the host as a coroutine function of the state: the
caller's seat is found, and the words a call needs are listed and checked (one
``CheckWords`` batch), against the very state the command is decided on; after a
conflict the host decides again from the new state, so a check is never stale.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from parlor.core.errors import FailedPrecondition
from parlor.gamehost import GameHost, Outcome, Recorded
from parlor.gamehost.codec import event_info
from parlor.gamehost.directory import Directory
from parlor.gamehost.queue import GameQueue
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import FollowUp, GameService, Move, MoveCommand, SeatCommand
from parlor.gamehost.words import Dictionary
from parlor.rules import takefour as tf
from parlor.services.takefour.codec import Event, config_of, game_event_pb, game_pb
from parlor.services.takefour.game import GAME
from parlor.services.takefour.notation import export
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

State = Table[tf.TakeFourState]
TakeFourHost = GameHost[State, Any, Event]
Build = Callable[[int], tf.TakeFourCommand]


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


def _play(build: Callable[[Any, int], tf.TakeFourCommand]) -> Move:
    """A move RPC: ``build(request, seat)``, refused if the request names another round."""
    return Move(
        lambda request, table, seat: build(request, seat),
        lambda request, table: check_round(table.game, request.round),
    )


def _letter(value: str) -> str | None:
    return value.upper() if value else None


def _moved(r: pb.MoveTileRequest, seat: int) -> tf.MoveTile:
    f, t = getattr(r, "from"), r.to
    return tf.MoveTile(seat, f.x, f.y, t.x, t.y, _letter(r.letter))


class TakeFourServicer(GameService[State, Event], pb_grpc.TakeFourServiceServicer):
    game = GAME
    simultaneous = True
    view_cache = False
    PlaceTile = _play(lambda r, seat: tf.PlaceTile(seat, r.tile, r.x, r.y, _letter(r.letter)))
    MoveTile = _play(_moved)
    TakeBackTile = _play(lambda r, seat: tf.TakeBackTile(seat, r.cell.x, r.cell.y))
    SwapJoker = _play(lambda r, seat: tf.SwapJoker(seat, r.tile, r.cell.x, r.cell.y))
    CallTakeFour = _play(lambda r, seat: tf.CallTakeFour(seat))
    AgreeToDeal = _play(lambda r, seat: tf.AgreeToDeal(seat))
    WithdrawAgreement = _play(lambda r, seat: tf.WithdrawAgreement(seat))
    CallDone = _play(lambda r, seat: tf.CallDone(seat))
    # The seat forfeits (as a seat idle past three limits does) and the others play on.
    Leave = _play(lambda r, seat: tf.Forfeit(seat, "LEFT"))

    def __init__(
        self,
        host: TakeFourHost,
        dictionary: Dictionary,
        queue: GameQueue | None = None,
        directory: Directory | None = None,
    ) -> None:
        super().__init__(host, directory, queue)
        self.dictionary = dictionary

    # -- the game's own mapping --------------------------------------------------------------

    def build_game(
        self, game_id: str, version: int, table: State, viewer: int | None, everything: bool
    ) -> pb.Game:
        return game_pb(game_id, version, table, viewer, everything)

    def event_message(
        self, recorded: Recorded[Event], before: State | None, viewer: int | None, everything: bool
    ) -> pb.GameEvent:
        """The codec shows ``viewer`` what the engine's ``public_event`` lets them see."""
        return game_event_pb(recorded.event, event_info(recorded), viewer, everything)

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

    def next_command(self, table: State) -> FollowUp | None:
        """The next round is dealt right after the last one is scored (or the game created),
        under a command id naming the round: the call that scored it, a retry, a bot runner
        or another replica may all try, and the round starts once."""
        if not table.seats or table.game.phase is not tf.Phase.BETWEEN_ROUNDS:
            return None

        async def start(current: State) -> tf.StartRound:
            return tf.StartRound(shuffled_bag(current.game.config.tiles.size))

        return FollowUp("round", table.game.round + 1, start)

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
            self._checked(lambda table, seat: build(seat), remaining),
            command_id,
            lambda table: check_round(table.game, meant_for),
        )

    def seat_command(self, command: MoveCommand, request: Any, context: Any) -> SeatCommand[State]:
        return self._checked(
            lambda table, seat: command(request, table, seat), context.time_remaining
        )

    def _checked(
        self, build: SeatCommand[State], remaining: Callable[[], float | None]
    ) -> SeatCommand[State]:
        """The seat's command with the dictionary's verdicts on the very state it is decided
        on (``remaining``: the caller's time left bounds the check)."""

        def checked(table: State, seat: int) -> Awaitable[tf.TakeFourCommand]:
            game = table.game
            command = build(table, seat)
            return self.dictionary.attach(
                tf.TAKE_FOUR, game.config.lexicon, game, command, remaining
            )

        return checked
