"""The gRPC face of Upwords: its moves; everything games share is the game host's.

Every response is built for its caller: their own rack and draws, counts for
everyone else's, until the game ends (then everything). Words are checked by
the dictionary service in one batch per play, inside the command, so the
verdicts are about the very state the play is decided on. ``GameService``
(libs/gamehost) serves create, get, history, watch, list, replay and export;
the bots' strategy is in ``bots.py``.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from parlor.core.errors import InvalidArgument, PermissionDenied
from parlor.gamehost import GameHost, Outcome, Recorded
from parlor.gamehost.codec import event_info as info_pb
from parlor.gamehost.directory import Directory
from parlor.gamehost.export import with_seat_tags
from parlor.gamehost.seating import GameFinished, OpenTable, Seat, SeatsTaken, Table
from parlor.gamehost.service import BotCommand, GameService, deadline, requested_seat, viewer_seat
from parlor.gamehost.timecontrol import UNTIMED, TimeControl
from parlor.gamehost.views import ViewCache
from parlor.gamehost.words import Dictionary
from parlor.kit import auth
from parlor.rules import upwords as uw
from parlor.rules.upwords import notation, record
from parlor.services.upwords.bots import LEVELS, Bots, bot_move, challenge
from parlor.services.upwords.codec import (
    Event,
    boards_before,
    config_of,
    game_event_pb,
    game_pb,
    shown,
)
from parlor.services.upwords.game import GAME
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

UpwordsTable = Table[uw.UpwordsState]
UpwordsHost = GameHost[UpwordsTable, Any, Event]
Build = Callable[[uw.UpwordsState, int], Awaitable[uw.Command]]

MAX_CREATE_ATTEMPTS = 3


def acting_seat(table: UpwordsTable, identity: auth.Identity, requested: int | None) -> int:
    """The caller's own seat they act (and see) as: the requested one only if it is theirs."""
    if requested is not None:
        return table.seat_of(identity.player_id, requested)
    seat = viewer_seat(table, identity)
    if seat is None:
        raise PermissionDenied("you have no seat in this game", reason="NOT_SEATED")
    return seat


def tile_of(text: str) -> str:
    """A tile as the engine names it: upper case letters, and ``Qu``."""
    t = text.strip().upper()
    return uw.QU if t == "QU" else t


def shuffled_bag(rng: random.Random) -> tuple[str, ...]:
    bag = list(uw.full_bag())
    rng.shuffle(bag)
    return tuple(bag)


class UpwordsServicer(GameService[UpwordsTable, Event], pb_grpc.UpwordsServiceServicer):
    pb = pb
    default_time_control = GAME.default_time_control
    bot_levels = sorted(LEVELS)

    def __init__(
        self,
        host: UpwordsHost,
        dictionary: Dictionary,
        bots: Bots,
        *,
        max_bot_moves: int = 500,
        directory: Directory | None = None,
    ) -> None:
        super().__init__(host, directory)
        self.dictionary = dictionary
        self.bots = bots
        self.max_bot_moves = max_bot_moves
        self.random = secrets.SystemRandom()
        self._views: ViewCache[pb.Game] = ViewCache()

    # -- the game's own mapping --------------------------------------------------------------

    def game_message(
        self, game_id: str, version: int, table: UpwordsTable, viewer: int | None, everything: bool
    ) -> pb.Game:
        return self._views.get(
            game_id,
            version,
            viewer,
            everything,
            lambda: self.with_clocks(
                game_pb(game_id, version, table, viewer, reveal=everything), table
            ),
        )

    def event_message(
        self, recorded: Recorded[Event], before: UpwordsTable, viewer: int | None, everything: bool
    ) -> pb.GameEvent:
        event = recorded.event if everything else shown(recorded.event, viewer)
        return game_event_pb(event, info_pb(recorded), before.game.board)

    def export_message(
        self, game_id: str, table: UpwordsTable, events: Any
    ) -> pb.ExportGameResponse:
        moves = [e for e in events if not isinstance(e, SeatsTaken | GameFinished)]
        return pb.ExportGameResponse(text=with_seat_tags(table.seats, [record.export_game(moves)]))

    async def open(
        self,
        game_id: str,
        seats: tuple[Seat, ...],
        config: Any,
        *,
        command_id: str | None,
        actor: str,
        extra: Mapping[str, str],
        correlation_id: str | None = None,
        deadline: float | None = None,
        time_control: TimeControl = UNTIMED,
        matched: bool = False,
    ) -> Outcome[UpwordsTable, Event]:
        """Create a game: the lexicon's id recorded, both bag orders drawn from a secure source."""
        chosen = config_of(config) if config is not None else uw.UpwordsConfig()
        if command_id is not None and await self.host.exists(game_id):
            # A retried create answers from the store, without asking the dictionary again;
            # the id is the actor's own (COMMAND_ID_TAKEN otherwise) and the same create.
            prior = await self.host.prior(game_id, command_id, actor)
            if prior is not None:
                return prior
        lexicon_id = await self.dictionary.lexicon_id(chosen.lexicon, deadline)
        chosen = replace(chosen, lexicon=lexicon_id)
        players = tuple(s.player_id for s in seats)
        for attempt in range(MAX_CREATE_ATTEMPTS):
            create = uw.CreateGame(
                chosen, players, shuffled_bag(self.random), shuffled_bag(self.random)
            )
            try:
                return await self.host.create(
                    game_id,
                    OpenTable(seats, create, time_control, matched),
                    command_id=command_id,
                    actor=actor,
                    correlation_id=correlation_id,
                    extra=extra,
                )
            except InvalidArgument as exc:
                # Practically never: the first-player draw ran out of tiles. Shuffle again.
                if exc.reason != "DRAW_EXHAUSTED" or attempt == MAX_CREATE_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    async def before_read(
        self, game_id: str, table: UpwordsTable, version: int
    ) -> tuple[UpwordsTable, int]:
        # Bots answer at once; if a reply failed before (dictionary down), it happens now.
        if self.bot_to_move(table) is None:
            return table, version
        outcome = await self.play_bots(game_id, Outcome(table, version, ()))
        return outcome.state, outcome.version

    def bot_to_move(self, table: UpwordsTable) -> int | None:
        game = table.game
        playing = game.phase is uw.Phase.PLAYING and bool(table.seats)
        return game.to_move if playing and table.seats[game.to_move].is_bot else None

    def bot_command(self, seat: int, level: str) -> BotCommand:
        async def command(table: UpwordsTable) -> uw.Command:
            return await bot_move(
                self.bots,
                self.dictionary,
                table.game,
                seat,
                level or "best",
                self.random,
                self._insert_position(table.game),
            )

        return command

    def _insert_position(self, game: uw.UpwordsState) -> int:
        """Where the returned tile goes into the bag: uniformly at random, securely."""
        positions = uw.exchange_positions(game)
        return self.random.randrange(positions) if positions > 0 else 0

    # -- moves -------------------------------------------------------------------------------

    async def _act(self, request: Any, build: Build) -> dict[str, Any]:
        """Run one seat's command (and the bots' replies): the reply's game and events."""
        me = auth.caller()
        seat = requested_seat(request)

        async def command(table: UpwordsTable) -> uw.Command:
            return await build(table.game, table.seat_of(me.player_id, seat))

        outcome = await self.host.execute(
            request.game_id, command, command_id=request.command_id or None, actor=me.player_id
        )
        # A command id already in the stream is answered with its stored outcome, even when
        # deciding again failed (another's seat, no seat): the caller must still hold the seat
        # the answer is shown for, or a replayed id would show them someone else's rack.
        viewer = acting_seat(outcome.state, me, seat)
        first = outcome.version - len(outcome.events) + 1
        moved = outcome
        outcome = await self.after(request.game_id, outcome)
        over = self.over(outcome.state)
        history = await self.host.recorded(request.game_id, first, outcome.version, moved, outcome)
        boards = boards_before([r.event for r in history], outcome.state.game.board)
        events = [
            game_event_pb(r.event if over else shown(r.event, viewer), info_pb(r), board)
            for r, board in zip(history, boards, strict=True)
        ]
        game = self.game_message(request.game_id, outcome.version, outcome.state, viewer, over)
        return {"game": game, "events": events}

    async def Play(self, request: pb.PlayRequest, context: Any) -> pb.PlayResponse:
        placements, kept = self._placements(request)
        left = deadline(context)

        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            for row, col, tile in kept:
                if game.board.top(row, col) != tile:
                    raise InvalidArgument(
                        f"the letters in parentheses must be on the board:"
                        f" {notation.format_coordinate(row, col, (0, 1))} is not {tile.upper()}",
                        reason="BAD_NOTATION",
                    )
            play = uw.Play(seat, placements)
            if game.config.word_checking is not uw.WordChecking.AUTO:
                return play
            words = uw.words_formed(game, play)  # every board rule first, then one batch
            verdicts = await self.dictionary.verdicts(game.config.lexicon, words, left)
            return uw.Play(seat, placements, verdicts)

        return pb.PlayResponse(**await self._act(request, build))

    def _placements(
        self, request: pb.PlayRequest
    ) -> tuple[tuple[uw.Placement, ...], tuple[tuple[int, int, str], ...]]:
        if request.placements and request.move:
            raise InvalidArgument(
                "give the play as placements or as a move in notation, not both",
                reason="PLAY_GIVEN_TWICE",
            )
        if request.placements:
            return (
                tuple(uw.Placement(p.row, p.col, tile_of(p.tile)) for p in request.placements),
                (),
            )
        if not request.move.strip():
            raise InvalidArgument("a play places at least one tile", reason="NO_TILES")
        move = notation.parse_move(request.move)
        if not isinstance(move, notation.NotatedPlay):
            raise InvalidArgument(
                "a pass or an exchange is not a play: use Pass or Exchange",
                reason="BAD_NOTATION",
            )
        return move.placements, move.kept

    async def Pass(self, request: pb.PassRequest, context: Any) -> pb.PassResponse:
        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return uw.Pass(seat)

        return pb.PassResponse(**await self._act(request, build))

    async def Exchange(self, request: pb.ExchangeRequest, context: Any) -> pb.ExchangeResponse:
        tile = tile_of(request.tile)
        if tile not in uw.DISTRIBUTION:
            raise InvalidArgument(f"{request.tile!r} is not an Upwords tile", reason="UNKNOWN_TILE")

        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return uw.Exchange(seat, tile, self._insert_position(game))

        return pb.ExchangeResponse(**await self._act(request, build))

    async def Challenge(self, request: pb.ChallengeRequest, context: Any) -> pb.ChallengeResponse:
        left = deadline(context)

        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return await challenge(self.dictionary, game, seat, left)

        return pb.ChallengeResponse(**await self._act(request, build))

    async def AcceptPlay(
        self, request: pb.AcceptPlayRequest, context: Any
    ) -> pb.AcceptPlayResponse:
        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return uw.AcceptPlay(seat)

        return pb.AcceptPlayResponse(**await self._act(request, build))

    async def Resign(self, request: pb.ResignRequest, context: Any) -> pb.ResignResponse:
        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return uw.Resign(seat)

        return pb.ResignResponse(**await self._act(request, build))
