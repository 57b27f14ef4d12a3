"""The gRPC face of Upwords: requests in, the rule engine via the game host, views out.

Every response is built for its caller: their own rack and draws, counts for
everyone else's, until the game ends (then everything). Words are checked by
the dictionary service in one batch per play, inside the command, so the
verdicts are about the very state the play is decided on.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from parlor.core.errors import InvalidArgument, ParlorError, PermissionDenied
from parlor.gamehost import GameHost, Outcome, Recorded, system_command_id
from parlor.gamehost.codec import event_info as info_pb
from parlor.gamehost.consent import create_consent
from parlor.gamehost.directory import Directory
from parlor.gamehost.listing import list_games
from parlor.gamehost.matches import from_match, match_seats
from parlor.gamehost.replay import entitlement, play_back
from parlor.gamehost.seating import GameFinished, OpenTable, Seat, SeatsTaken, Table
from parlor.gamehost.words import Dictionary
from parlor.kit import auth
from parlor.matchmaking.v1.events_pb2 import MatchFormed
from parlor.rules import upwords as uw
from parlor.rules.upwords import notation, record
from parlor.rules.upwords.bot import BotPlay, UpwordsBot
from parlor.services.upwords.bots import LEVELS, Bots
from parlor.services.upwords.codec import (
    Event,
    board_before,
    boards_before,
    config_of,
    game_event_pb,
    game_pb,
    shown,
)
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

log = logging.getLogger("parlor.services.upwords")

UpwordsTable = Table[uw.UpwordsState]
UpwordsHost = GameHost[UpwordsTable, Any, Event]
Build = Callable[[uw.UpwordsState, int], Awaitable[uw.Command]]

MAX_CREATE_ATTEMPTS = 3
BOT_CANDIDATES = 24
"""Plays a bot offers the dictionary at once; the first all-valid one is played."""


def viewer_seat(table: UpwordsTable, identity: auth.Identity) -> int | None:
    mine = table.seats_of(identity.player_id)
    return mine[0] if mine else None


def acting_seat(table: UpwordsTable, identity: auth.Identity, requested: int | None) -> int:
    """The caller's own seat they act (and see) as: the requested one only if it is theirs."""
    if requested is not None:
        return table.seat_of(identity.player_id, requested)
    seat = viewer_seat(table, identity)
    if seat is None:
        raise PermissionDenied("you have no seat in this game", reason="NOT_SEATED")
    return seat


def remaining(context: Any) -> float | None:
    """The caller's deadline, passed on to the dictionary."""
    try:
        left = context.time_remaining()
    except (AttributeError, RuntimeError):
        return None
    return float(left) if left is not None else None


def tile_of(text: str) -> str:
    """A tile as the engine names it: upper case letters, and ``Qu``."""
    t = text.strip().upper()
    return uw.QU if t == "QU" else t


def requested_seat(request: Any) -> int | None:
    return int(request.seat) if request.HasField("seat") else None


def shuffled_bag(rng: random.Random) -> tuple[str, ...]:
    bag = list(uw.full_bag())
    rng.shuffle(bag)
    return tuple(bag)


class UpwordsServicer(pb_grpc.UpwordsServiceServicer):
    def __init__(
        self,
        host: UpwordsHost,
        dictionary: Dictionary,
        bots: Bots,
        *,
        max_bot_moves: int = 500,
        directory: Directory | None = None,
    ) -> None:
        self.host = host
        self.dictionary = dictionary
        self.bots = bots
        self.max_bot_moves = max_bot_moves
        self.directory = directory
        self.random = secrets.SystemRandom()

    # -- creating --------------------------------------------------------------------------

    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
        me = auth.caller()
        seats = tuple(Seat(s.player_id, s.display_name or s.player_id) for s in request.seats)
        for seat in seats:
            if seat.is_bot and seat.bot_level not in LEVELS:
                raise InvalidArgument(
                    f"unknown bot {seat.player_id!r}; bots are "
                    + ", ".join(f"bot:{level}" for level in sorted(LEVELS)),
                    reason="UNKNOWN_BOT_LEVEL",
                )
        game_id = request.game_id or secrets.token_hex(16)
        consent = await create_consent(self.host.store, game_id, seats, me)
        outcome = await self.open(
            game_id,
            seats,
            config_of(request.config),
            command_id=request.command_id or None,
            actor=me.player_id,
            extra=consent,
            deadline=remaining(context),
        )
        outcome = await self.play_bots(game_id, outcome)
        viewer = viewer_seat(outcome.state, me)
        return pb.CreateGameResponse(
            game=self._game(game_id, outcome.version, outcome.state, viewer),
            events=await self._events(game_id, 1, outcome.version, viewer),
        )

    async def open(
        self,
        game_id: str,
        seats: tuple[Seat, ...],
        config: uw.UpwordsConfig,
        *,
        command_id: str | None,
        actor: str,
        extra: Mapping[str, str],
        correlation_id: str | None = None,
        deadline: float | None = None,
    ) -> Outcome[UpwordsTable, Event]:
        """Create a game: the lexicon's id recorded, both bag orders drawn from a secure source."""
        if command_id is not None and await self.host.exists(game_id):
            # A retried create answers from the store, without asking the dictionary again.
            table, version = await self.host.load(game_id)
            events = tuple(r.event for r in await self.host.history(game_id))
            prior = await self.host.store.command_result(self.host.stream_id(game_id), command_id)
            if prior is not None:
                self.host.check_fingerprint(game_id, prior)  # the same id, another create
                return Outcome(table, version, events, duplicate=True)
        lexicon_id = await self.dictionary.lexicon_id(config.lexicon, deadline)
        config = replace(config, lexicon=lexicon_id)
        players = tuple(s.player_id for s in seats)
        for attempt in range(MAX_CREATE_ATTEMPTS):
            create = uw.CreateGame(
                config, players, shuffled_bag(self.random), shuffled_bag(self.random)
            )
            try:
                return await self.host.create(
                    game_id,
                    OpenTable(seats, create),
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

    async def create_from_match(self, match: MatchFormed) -> None:
        """A matchmade game (``match`` as the store holds it): seats as matched, default rules,
        bots move at once."""
        outcome = await self.open(
            match.match_id, match_seats(match), uw.UpwordsConfig(), **from_match(match)
        )
        await self.play_bots(match.match_id, outcome)

    # -- moves -----------------------------------------------------------------------------

    async def _act(
        self, game_id: str, seat: int | None, command_id: str, build: Build
    ) -> tuple[int, UpwordsTable, list[pb.GameEvent], int | None]:
        """Run one seat's command (and the bots' replies); the events as the caller sees them."""
        me = auth.caller()

        async def command(table: UpwordsTable) -> uw.Command:
            return await build(table.game, table.seat_of(me.player_id, seat))

        outcome = await self.host.execute(
            game_id, command, command_id=command_id or None, actor=me.player_id
        )
        # A command id already in the stream is answered with its stored outcome, even when
        # deciding again failed (another's seat, no seat): the caller must still hold the seat
        # the answer is shown for, or a replayed id would show them someone else's rack.
        viewer = acting_seat(outcome.state, me, seat)
        first = outcome.version - len(outcome.events) + 1
        outcome = await self.play_bots(game_id, outcome)
        events = await self._reply_events(game_id, first, outcome.version, outcome.state, viewer)
        return outcome.version, outcome.state, events, viewer

    async def Play(self, request: pb.PlayRequest, context: Any) -> pb.PlayResponse:
        placements, kept = self._placements(request)
        deadline = remaining(context)

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
            verdicts = await self.dictionary.verdicts(game.config.lexicon, words, deadline)
            return uw.Play(seat, placements, verdicts)

        version, table, events, viewer = await self._act(
            request.game_id, requested_seat(request), request.command_id, build
        )
        return pb.PlayResponse(
            game=self._game(request.game_id, version, table, viewer), events=events
        )

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

        version, table, events, viewer = await self._act(
            request.game_id, requested_seat(request), request.command_id, build
        )
        return pb.PassResponse(
            game=self._game(request.game_id, version, table, viewer), events=events
        )

    async def Exchange(self, request: pb.ExchangeRequest, context: Any) -> pb.ExchangeResponse:
        tile = tile_of(request.tile)
        if tile not in uw.DISTRIBUTION:
            raise InvalidArgument(f"{request.tile!r} is not an Upwords tile", reason="UNKNOWN_TILE")

        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return uw.Exchange(seat, tile, self._insert_position(game))

        version, table, events, viewer = await self._act(
            request.game_id, requested_seat(request), request.command_id, build
        )
        return pb.ExchangeResponse(
            game=self._game(request.game_id, version, table, viewer), events=events
        )

    def _insert_position(self, game: uw.UpwordsState) -> int:
        """Where the returned tile goes into the bag: uniformly at random, securely."""
        positions = uw.exchange_positions(game)
        return self.random.randrange(positions) if positions > 0 else 0

    async def Challenge(self, request: pb.ChallengeRequest, context: Any) -> pb.ChallengeResponse:
        deadline = remaining(context)

        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return await self._challenge(game, seat, deadline)

        version, table, events, viewer = await self._act(
            request.game_id, requested_seat(request), request.command_id, build
        )
        return pb.ChallengeResponse(
            game=self._game(request.game_id, version, table, viewer), events=events
        )

    async def _challenge(
        self, game: uw.UpwordsState, seat: int, deadline: float | None = None
    ) -> uw.Command:
        words = uw.pending_words(game)
        if words and game.pending is not None and game.pending.seat != seat:
            verdicts = await self.dictionary.verdicts(game.config.lexicon, words, deadline)
        else:
            verdicts = {}  # the engine refuses: nothing to challenge, or one's own play
        return uw.Challenge(seat, verdicts)

    async def AcceptPlay(
        self, request: pb.AcceptPlayRequest, context: Any
    ) -> pb.AcceptPlayResponse:
        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return uw.AcceptPlay(seat)

        version, table, events, viewer = await self._act(
            request.game_id, requested_seat(request), request.command_id, build
        )
        return pb.AcceptPlayResponse(
            game=self._game(request.game_id, version, table, viewer), events=events
        )

    async def Resign(self, request: pb.ResignRequest, context: Any) -> pb.ResignResponse:
        async def build(game: uw.UpwordsState, seat: int) -> uw.Command:
            return uw.Resign(seat)

        version, table, events, viewer = await self._act(
            request.game_id, requested_seat(request), request.command_id, build
        )
        return pb.ResignResponse(
            game=self._game(request.game_id, version, table, viewer), events=events
        )

    # -- reading ---------------------------------------------------------------------------

    async def GetGame(self, request: pb.GetGameRequest, context: Any) -> pb.GetGameResponse:
        me = auth.caller()
        current, now = await self.host.load(request.game_id)
        if not request.version and self._bot_to_move(current):
            # Bots answer at once; if a reply failed before (dictionary down), it happens now.
            outcome = await self.play_bots(request.game_id, Outcome(current, now, ()))
            current, now = outcome.state, outcome.version
        if request.version and request.version != now:
            table, version = await self.host.load(request.game_id, request.version)
        else:
            table, version = current, now
        return pb.GetGameResponse(
            game=game_pb(
                request.game_id,
                version,
                table,
                viewer_seat(current, me),
                reveal=self._over(current),
            )
        )

    async def GetHistory(
        self, request: pb.GetHistoryRequest, context: Any
    ) -> pb.GetHistoryResponse:
        me = auth.caller()
        if request.to_version and request.to_version < request.from_version:
            raise InvalidArgument("to_version comes before from_version", reason="INVALID_RANGE")
        current, now = await self.host.load(request.game_id)
        events = await self._events(
            request.game_id,
            request.from_version or 1,
            min(request.to_version or now, now),
            viewer_seat(current, me),
            reveal=self._over(current),
        )
        return pb.GetHistoryResponse(events=events)

    async def WatchGame(
        self, request: pb.WatchGameRequest, context: Any
    ) -> AsyncIterator[pb.WatchGameResponse]:
        me = auth.caller()
        current, _ = await self.host.load(request.game_id)
        reveal = self._over(current)
        viewer = viewer_seat(current, me)
        table = self.host.decider.initial_state()
        async for recorded in self.host.watch(request.game_id):
            before = table.game.board
            table = self.host.decider.evolve(table, recorded.event)
            if recorded.version > request.after_version:
                event = recorded.event if reveal else shown(recorded.event, viewer)
                yield pb.WatchGameResponse(
                    event=game_event_pb(event, info_pb(recorded), before),
                    game=game_pb(request.game_id, recorded.version, table, viewer, reveal=reveal),
                )
            if isinstance(recorded.event, GameFinished):
                return

    async def ExportGame(
        self, request: pb.ExportGameRequest, context: Any
    ) -> pb.ExportGameResponse:
        auth.caller()
        history = await self.host.history(request.game_id)
        if not history:
            raise self.host._not_found(request.game_id)
        events = [r.event for r in history if not isinstance(r.event, SeatsTaken | GameFinished)]
        return pb.ExportGameResponse(text=record.export_game(events))

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        auth.caller()
        return await list_games(self.directory, request, pb.ListGamesResponse)

    async def ReplayGame(
        self, request: pb.ReplayGameRequest, context: Any
    ) -> AsyncIterator[pb.ReplayGameResponse]:
        """A finished game, event by event: everything shown, as ``GetHistory`` after the end."""
        me = auth.caller()
        async for recorded, table in play_back(
            self.host, request.game_id, request.pace_ms, request.from_version or 1
        ):
            # play_back yields only finished games: everyone sees everything (the game host's
            # rule, the same for every game), at every version, not just the last.
            seen = entitlement(True, viewer_seat(table, me))
            event = recorded.event if seen.everything else shown(recorded.event, seen.viewer)
            yield pb.ReplayGameResponse(
                event=game_event_pb(event, info_pb(recorded), board_before(recorded.event, table)),
                game=game_pb(
                    request.game_id, recorded.version, table, seen.viewer, reveal=seen.everything
                ),
            )

    async def _events(
        self,
        game_id: str,
        first: int,
        last: int,
        viewer: int | None,
        *,
        reveal: bool | None = None,
    ) -> list[pb.GameEvent]:
        """Events ``first..last`` as ``viewer`` may see them (folded from 1 for the notation)."""
        if last < first:
            return []
        history = await self.host.history(game_id, 1, last)
        if not history:
            raise self.host._not_found(game_id)
        table = self.host.decider.initial_state()
        wanted: list[tuple[Recorded[Event], uw.Board]] = []
        for recorded in history:
            before = table.game.board
            table = self.host.decider.evolve(table, recorded.event)
            if recorded.version >= first:
                wanted.append((recorded, before))
        over = self._over(table) if reveal is None else reveal
        return [
            game_event_pb(r.event if over else shown(r.event, viewer), info_pb(r), board)
            for r, board in wanted
        ]

    async def _reply_events(
        self, game_id: str, first: int, last: int, after: UpwordsTable, viewer: int | None
    ) -> list[pb.GameEvent]:
        """Events ``first..last`` of a reply, ``after`` being the game at ``last``: only those
        events are read, their boards worked out backwards (no fold from the start)."""
        if last < first:
            return []
        history = await self.host.history(game_id, first, last)
        over = self._over(after)
        boards = boards_before([r.event for r in history], after.game.board)
        return [
            game_event_pb(r.event if over else shown(r.event, viewer), info_pb(r), board)
            for r, board in zip(history, boards, strict=True)
        ]

    def _game(self, game_id: str, version: int, table: UpwordsTable, viewer: int | None) -> pb.Game:
        return game_pb(game_id, version, table, viewer, reveal=self._over(table))

    @staticmethod
    def _over(table: UpwordsTable) -> bool:
        return table.game.phase is uw.Phase.ENDED

    # -- bots ------------------------------------------------------------------------------

    @staticmethod
    def _bot_to_move(table: UpwordsTable) -> bool:
        game = table.game
        return (
            game.phase is uw.Phase.PLAYING
            and bool(table.seats)
            and table.seats[game.to_move].is_bot
        )

    async def play_bots(
        self, game_id: str, outcome: Outcome[UpwordsTable, Event]
    ) -> Outcome[UpwordsTable, Event]:
        """Let bots whose turn it is move, each move its own idempotent command."""
        for _ in range(self.max_bot_moves):
            if not self._bot_to_move(outcome.state):
                return outcome
            seat = outcome.state.game.to_move
            bot = outcome.state.seats[seat]
            level = bot.bot_level or "best"

            async def command(
                table: UpwordsTable, seat: int = seat, level: str = level
            ) -> uw.Command:
                if table.game.to_move != seat:
                    raise PermissionDenied("it is not the bot's turn", reason="NOT_YOUR_TURN")
                return await self.bot_move(table.game, seat, level)

            try:
                outcome = await self.host.execute(
                    game_id,
                    command,
                    command_id=system_command_id("bot", outcome.version),
                    actor=bot.player_id,
                )
            except ParlorError as exc:
                # Another replica moved for this bot first, or the dictionary is down:
                # the caller sees the latest state; the bot moves again when asked.
                log.info("bot move not made", extra={"game_id": game_id, "reason": exc.reason})
                table, version = await self.host.load(game_id)
                return Outcome(table, version, ())
        return outcome

    async def bot_move(self, game: uw.UpwordsState, seat: int, level: str) -> uw.Command:
        """A bot's command: challenge a doubtful pending play, else its best valid play."""
        pending = game.pending
        if pending is not None and pending.seat != seat:
            if await self.bots.doubts(pending.words):
                return await self._challenge(game, seat)
            if game.pending_is_final():
                return uw.AcceptPlay(seat)
        seen = uw.view(game, seat)
        candidates = await self.bots.alternatives(seen)
        if level != "best":
            self.random.shuffle(candidates)
        candidates = candidates[:BOT_CANDIDATES]
        chosen = await self._first_valid(game, seat, candidates)
        if chosen is not None:
            return chosen
        if seen.bag_count > 0 and not seen.retry and seen.rack:
            return uw.Exchange(seat, UpwordsBot.worst_tile(seen.rack), self._insert_position(game))
        return uw.Pass(seat)

    async def _first_valid(
        self, game: uw.UpwordsState, seat: int, candidates: list[BotPlay]
    ) -> uw.Play | None:
        """The first candidate whose words the dictionary accepts, asked in one batch."""
        if not candidates:
            return None
        if game.config.word_checking is not uw.WordChecking.AUTO:
            return uw.Play(seat, candidates[0].placements)
        formed = [uw.words_formed(game, uw.Play(seat, c.placements)) for c in candidates]
        verdicts = await self.dictionary.verdicts(
            game.config.lexicon, [w for words in formed for w in words]
        )
        for candidate, words in zip(candidates, formed, strict=True):
            if all(verdicts[w] for w in words):
                return uw.Play(seat, candidate.placements, {w: True for w in words})
        return None
