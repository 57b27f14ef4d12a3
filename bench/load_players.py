"""The load run's players: one per game type, each a plain gRPC client of the platform.

A player sees only what its own seat is shown (the ``Game`` message its calls and
``WatchGame`` return) and decides like a person would: Connect 4x4 picks a random
legal move; Upwords plays the best word of its own rack on the board it is shown
(the rules library's move generator over ENABLE); Take Four runs the rules
library's bot on the view it is shown, one command at a time. The thinking
happens in a worker process (``think_*``), so a long search never stalls the
event loop that times every call.

Every call's latency is timed from the moment the call is made to its reply, and
every event a reply acknowledges is recorded as ``(stream id, version)`` for the
check that it is stored and published.

``play_share`` runs a share of a run's players in a load process of its own (with a
thinking process of its own), so that hundreds of players do not share one event
loop: the capacity benchmark spreads its players over several.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import itertools
import multiprocessing
import multiprocessing.util
import random
import re
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import grpc

from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4grpc
from parlor.kit import client
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from parlor.takefour.v1 import takefour_pb2 as tfpb
from parlor.takefour.v1 import takefour_pb2_grpc as tfgrpc
from parlor.upwords.v1 import upwords_pb2 as uwpb
from parlor.upwords.v1 import upwords_pb2_grpc as uwgrpc

GAME_TYPES = ("connect4x4", "upwords", "takefour")


@dataclass
class Tally:
    """What one game type's players saw: latencies, acknowledged events, games, refusals."""

    latencies: list[float] = field(default_factory=list)
    """Every call made in the measured window, ms from the call's start to its reply."""
    calls: dict[str, list[float]] = field(default_factory=dict)
    """The same latencies by RPC name."""
    acked: set[tuple[str, int]] = field(default_factory=set)
    games_started: set[str] = field(default_factory=set)
    games_finished: set[str] = field(default_factory=set)
    refused: dict[str, int] = field(default_factory=dict)
    examples: dict[str, str] = field(default_factory=dict)
    deadline: float = float("inf")
    """The end of the load window: calls after it (games finishing) are counted apart."""
    after_deadline: int = 0
    measured_from: float = float("-inf")
    """The start of the measured window (``time.monotonic``): calls made before it (while
    players still arrive) go to ``ramp``, not ``latencies``."""
    ramp: list[float] = field(default_factory=list)
    at: list[float] = field(default_factory=list)
    """When (``time.monotonic``) each call of ``latencies`` was made, in the same order."""

    def merge(self, other: Tally) -> None:
        """Add another process's tally of the same game type to this one."""
        self.latencies += other.latencies
        self.at += other.at
        for name, samples in other.calls.items():
            self.calls.setdefault(name, []).extend(samples)
        self.acked |= other.acked
        self.games_started |= other.games_started
        self.games_finished |= other.games_finished
        for key, n in other.refused.items():
            self.refused[key] = self.refused.get(key, 0) + n
        for key, text in other.examples.items():
            self.examples.setdefault(key, text)
        self.after_deadline += other.after_deadline
        self.ramp += other.ramp

    def refuse(self, exc: grpc.aio.AioRpcError) -> None:
        key = exc.code().name
        self.refused[key] = self.refused.get(key, 0) + 1
        self.examples.setdefault(key, exc.details() or "")


async def timed(tally: Tally, name: str, rpc: Callable[[Any], Awaitable[Any]], request: Any) -> Any:
    """Make one call (``rpc`` of ``request``) and await it; record its latency, from before
    the call is made to its reply, under the window the call started in, and the events
    its reply acknowledges. A refused call raises, untimed (the players count refusals)."""
    at = time.monotonic()
    started = time.perf_counter()
    reply = await rpc(request)
    elapsed = (time.perf_counter() - started) * 1000
    if at < tally.measured_from:
        tally.ramp.append(elapsed)
    elif at <= tally.deadline:
        tally.latencies.append(elapsed)
        tally.at.append(at)
        tally.calls.setdefault(name, []).append(elapsed)
    else:
        tally.after_deadline += 1
    for event in getattr(reply, "events", ()):
        tally.acked.add((event.info.stream_id, event.info.version))
    return reply


async def matched(ch: grpc.aio.Channel, game_type: str) -> tuple[str, int]:
    """Ask matchmaking for a two-player game; the game id and our seat once matched."""
    matchmaking = mm_grpc.MatchmakingServiceStub(ch)
    ticket = (
        await matchmaking.CreateTicket(
            mm.CreateTicketRequest(game_type=game_type, min_players=2, max_players=2)
        )
    ).ticket
    async for update in matchmaking.WatchTicket(mm.WatchTicketRequest(ticket_id=ticket.ticket_id)):
        if update.ticket.match_id:
            return update.ticket.match_id, update.ticket.seat
    raise RuntimeError(f"ticket {ticket.ticket_id} ended without a match")


async def when_created(attempt: Callable[[], Any], seconds: float = 20.0) -> None:
    """A matched game exists once its service has consumed ``MatchFormed``: wait for it,
    asking again after 50 ms, then less and less often (at most every 0.5 s), as a client
    would: a fixed 50 ms made each waiting player a dozen NOT_FOUND calls a second."""
    pause, waited = 0.05, 0.0
    while waited < seconds:
        try:
            await attempt()
            return
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
            await asyncio.sleep(pause)
            waited += pause
            pause = min(0.5, pause * 1.5)
    raise TimeoutError("the matched game was never created")


class Player:
    """Plays games of one type through matchmaking, one after another, until the deadline."""

    game_type = ""
    pace: tuple[float, float] | None = None
    """Seconds a player thinks before each move, drawn uniformly (None: no pause)."""
    arrive_at: float = float("-inf")
    """When (``time.monotonic``) the player arrives and asks for a first game."""
    gate: Gate | None = None
    """An open-loop load's turns: when set, a player waits for its turn instead of ``pace``."""

    def __init__(
        self, target: str, token: str, tally: Tally, pool: Executor, deadline: float, seed: int
    ) -> None:
        self.target = target
        self.token = token
        self.tally = tally
        self.pool = pool
        self.deadline = deadline
        self.rng = random.Random(seed)

    async def run(self) -> None:
        await asyncio.sleep(self.arrive_at - time.monotonic())
        async with client.channel(self.target, self.token) as ch:
            while time.monotonic() < self.deadline:
                try:  # a ticket made just before the deadline may find no one any more
                    async with asyncio.timeout(self.deadline - time.monotonic() + 5):
                        game_id, seat = await matched(ch, self.game_type)
                except TimeoutError:
                    return
                self.tally.games_started.add(game_id)
                await when_created(lambda g=game_id, s=seat: self.play(ch, g, s))

    async def pause(self) -> None:
        """A human's thinking time before a move, when the run has a pace (or a gate)."""
        if self.gate is not None:
            await self.gate.turn()
        elif self.pace is not None:
            await asyncio.sleep(self.rng.uniform(*self.pace))

    async def think(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def play(self, ch: grpc.aio.Channel, game_id: str, seat: int) -> None:
        raise NotImplementedError


class Connect4x4Player(Player):
    game_type = "connect4x4"

    async def play(self, ch: grpc.aio.Channel, game_id: str, seat: int) -> None:
        games = c4grpc.Connect4x4ServiceStub(ch)
        known = 0  # the version our own last reply showed: older views are stale
        async for update in games.WatchGame(c4pb.WatchGameRequest(game_id=game_id)):
            game = update.game
            if game.status in (c4pb.STATUS_WON, c4pb.STATUS_TIED):
                self.tally.games_finished.add(game_id)
                return
            if game.version < known:
                continue
            if game.status != c4pb.STATUS_IN_PROGRESS or game.turn != seat:
                continue
            if not game.legal_moves:
                continue
            await self.pause()
            request = c4pb.PlayMoveRequest(
                game_id=game_id,
                move=self.rng.choice(list(game.legal_moves)),
                command_id=f"{game_id}-{game.version}",
            )
            try:
                reply = await timed(self.tally, "PlayMove", games.PlayMove, request)
                known = reply.game.version
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.UNAVAILABLE:
                    raise
                self.tally.refuse(exc)  # made from a view the stream had not caught up on


class UpwordsPlayer(Player):
    game_type = "upwords"

    async def play(self, ch: grpc.aio.Channel, game_id: str, seat: int) -> None:
        games = uwgrpc.UpwordsServiceStub(ch)
        known = 0  # the version our own last reply showed: older views are stale
        async for update in games.WatchGame(uwpb.WatchGameRequest(game_id=game_id)):
            game = update.game
            if game.status == uwpb.STATUS_ENDED:
                self.tally.games_finished.add(game_id)
                return
            if game.version < known:
                continue
            if game.status != uwpb.STATUS_IN_PROGRESS or game.to_move != seat:
                continue
            if game.pending.placements:
                continue  # challenge mode only; matchmade games check words at once
            await self.pause()
            kind, detail = await self.think(think_upwords, game.SerializeToString())
            command_id = f"{game_id}-{game.version}"
            rpc: Any
            message: Any
            if kind == "play":
                placements = [uwpb.Placement(row=r, col=c, tile=t) for r, c, t in detail]
                name, rpc = "Play", games.Play
                message = uwpb.PlayRequest(
                    game_id=game_id, placements=placements, command_id=command_id
                )
            elif kind == "exchange":
                name, rpc = "Exchange", games.Exchange
                message = uwpb.ExchangeRequest(game_id=game_id, tile=detail, command_id=command_id)
            else:
                name, rpc = "Pass", games.Pass
                message = uwpb.PassRequest(game_id=game_id, command_id=command_id)
            try:
                known = (await timed(self.tally, name, rpc, message)).game.version
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.UNAVAILABLE:
                    raise
                self.tally.refuse(exc)  # a view the stream had not caught up on; or a word
                # the dictionary refused: the next view decides again (passing if need be)


class TakeFourPlayer(Player):
    """Simultaneous play: act whenever the bot has a step, else wait for the next event."""

    game_type = "takefour"

    async def play(self, ch: grpc.aio.Channel, game_id: str, seat: int) -> None:
        games = tfgrpc.TakeFourServiceStub(ch)
        latest = (await games.GetGame(tfpb.GetGameRequest(game_id=game_id))).game
        changed = asyncio.Event()

        async def follow() -> None:
            nonlocal latest
            async for update in games.WatchGame(tfpb.WatchGameRequest(game_id=game_id)):
                if update.game.version > latest.version:
                    latest = update.game
                changed.set()

        watcher = asyncio.create_task(follow())
        key = f"{game_id}-{seat}"
        refused = False
        try:
            while latest.phase != tfpb.PHASE_OVER:
                await self.pause()
                seen = latest
                step = await self.think(think_takefour, key, seen.SerializeToString(), refused)
                refused = False
                if step is None:
                    changed.clear()
                    if latest.version == seen.version:
                        await asyncio.wait_for(changed.wait(), timeout=30)
                    continue
                name, fields = step
                request = getattr(tfpb, f"{name}Request")(
                    game_id=game_id, command_id=f"{key}-{seen.version}", **fields
                )
                try:
                    reply = await timed(self.tally, name, getattr(games, name), request)
                except grpc.aio.AioRpcError as exc:
                    if exc.code() == grpc.StatusCode.UNAVAILABLE:
                        raise
                    self.tally.refuse(exc)  # another player's deal came first: plan again
                    refused = True
                    if latest.version == seen.version:  # wait for what changed, if anything
                        changed.clear()
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(changed.wait(), timeout=1)
                    continue
                if reply.game.version > latest.version:
                    latest = reply.game
            self.tally.games_finished.add(game_id)
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
            await self.think(forget_takefour, key)


class Gate:
    """Turns handed out at a fixed rate, oldest waiter first: an open-loop load.

    The commands leave at ``rate`` a second whatever the server's replies take, as long as
    players wait (a human-pace load has many more players thinking than commands due); a
    turn due when no one waits is counted in ``missed`` (from ``counted_from`` on, the
    measured window) and not made up later."""

    def __init__(self, rate: float, counted_from: float = float("-inf")) -> None:
        self.rate = rate
        self.counted_from = counted_from
        self.waiting: collections.deque[asyncio.Future[None]] = collections.deque()
        self.missed = 0
        self.given = 0

    async def turn(self) -> None:
        future = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        await future

    async def run(self, until: float) -> None:
        due = time.monotonic()
        while due < until:
            due += 1.0 / self.rate
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            while self.waiting and self.waiting[0].done():  # a waiter cancelled
                self.waiting.popleft()
            if self.waiting:
                self.waiting.popleft().set_result(None)
                self.given += 1
            elif time.monotonic() >= self.counted_from:
                self.missed += 1


PLAYERS: dict[str, type[Player]] = {
    "connect4x4": Connect4x4Player,
    "upwords": UpwordsPlayer,
    "takefour": TakeFourPlayer,
}


# -- a share of the players, in a load process of its own ------------------------------------

Arrival = tuple[str, str, str, int, float]
"""(game type, player id, token, seed, arrival time): one player of a share."""

_thinker: concurrent.futures.ProcessPoolExecutor | None = None


def start_thinker() -> None:
    """A load process's own thinking process, its word graphs built (an initializer)."""
    global _thinker
    _thinker = concurrent.futures.ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn")
    )
    # A pool's process ends by joining its children, before any atexit hook, and a pool
    # shut down that late never hears its sentinel: end the thinker first, or the load
    # process never ends.
    multiprocessing.util.Finalize(_thinker, _end_thinker, exitpriority=10)
    _thinker.submit(warm_up).result()


def _end_thinker() -> None:
    if _thinker is not None:
        for process in list(getattr(_thinker, "_processes", {}).values()):
            process.terminate()
        _thinker.shutdown(wait=False, cancel_futures=True)


def ready(seconds: float) -> None:
    """Nothing, slowly: submitted once per load process so that every one is started."""
    time.sleep(seconds)


async def lag_samples(until: float, every: float = 0.02) -> list[float]:
    """How late (ms) this event loop wakes from a sleep of ``every``, until ``until``: the
    delay a reply may have waited in this process before its latency was read."""
    late: list[float] = []
    while time.monotonic() < until:
        started = time.perf_counter()
        await asyncio.sleep(every)
        late.append((time.perf_counter() - started - every) * 1000)
    return late


def failure(error: BaseException) -> str:
    """What a player died of, short, so that players dying of the same thing count as one
    (an RPC's status and details, an incident's id left out), and where: the player's
    last line it passed through (``matched:120``, say)."""
    where = ""
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == __file__:
            where = f" at {trace.tb_frame.f_code.co_name}:{trace.tb_lineno}"
        trace = trace.tb_next
    if isinstance(error, grpc.aio.AioRpcError):
        details = re.sub(r"\(incident [0-9a-f]+\)", "(incident ...)", error.details() or "")
        return f"{error.code().name}: {details[:140]}{where}"
    return f"{type(error).__name__}: {str(error)[:140]}{where}"


async def _play_share(
    target: str,
    arrivals: list[Arrival],
    pace: tuple[float, float] | None,
    measured_from: float,
    deadline: float,
    rate: float | None = None,
) -> tuple[dict[str, Tally], dict[str, int], list[float]]:
    assert _thinker is not None, "start_thinker first (the load processes' initializer)"
    tallies: dict[str, Tally] = {}
    tasks: dict[asyncio.Task[None], str] = {}
    gate = Gate(rate, measured_from) if rate else None
    for game_type, _, token, seed, arrive_at in arrivals:
        tally = tallies.setdefault(game_type, Tally(deadline=deadline, measured_from=measured_from))
        player = PLAYERS[game_type](target, token, tally, _thinker, deadline, seed)
        player.pace, player.arrive_at, player.gate = pace, arrive_at, gate
        tasks[asyncio.create_task(player.run())] = game_type
    if gate is not None:  # the turns start with the first arrivals
        first = min((a[4] for a in arrivals), default=time.monotonic())
        turns = asyncio.create_task(_gate_from(gate, first, deadline))
    await asyncio.sleep(max(0.0, measured_from - time.monotonic()))  # the players arrive
    lags = asyncio.create_task(lag_samples(deadline))
    # Players stop where they are at the deadline: what they were told is checked after.
    done, pending = await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    failures: dict[str, int] = {}
    for task in done:
        error = None if task.cancelled() else task.exception()
        if error is not None:
            key = f"{tasks[task]}: {failure(error)}"
            if key not in failures and isinstance(error, grpc.aio.AioRpcError):
                # where gRPC says it came from (this process, or the server), once a kind
                print(f"{key}: {error.debug_error_string()}", file=sys.stderr, flush=True)
            failures[key] = failures.get(key, 0) + 1
    if gate is not None:
        await turns
        if gate.missed:  # the load was not open-loop at its rate meanwhile
            failures["turns due with no player waiting"] = gate.missed
    return tallies, failures, await lags


async def _gate_from(gate: Gate, start: float, until: float) -> None:
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    await gate.run(until)


def play_share(
    target: str,
    arrivals: list[Arrival],
    pace: tuple[float, float] | None,
    measured_from: float,
    deadline: float,
    rate: float | None = None,
) -> tuple[dict[str, Tally], dict[str, int], list[float]]:
    """Play these players until ``deadline`` (``time.monotonic``, the same clock in every
    process of this machine); their tallies, the players that failed, and this process's
    event-loop lag (ms) during the measured window. With ``rate``, the players' commands
    leave at that rate (``Gate``) instead of after ``pace``."""
    return asyncio.run(_play_share(target, arrivals, pace, measured_from, deadline, rate))


# -- thinking, in the worker process --------------------------------------------------------

_upwords_bot: Any = None
_takefour_index: Any = None
_takefour_seats: dict[str, Any] = {}


def warm_up() -> None:
    """Build both word graphs once, before the clock starts."""
    _upwords()
    _takefour()


def _upwords() -> Any:
    global _upwords_bot
    if _upwords_bot is None:
        from parlor.lexicon import enable1
        from parlor.rules.upwords.bot import UpwordsBot

        _upwords_bot = UpwordsBot(enable1().words())
    return _upwords_bot


def _takefour() -> Any:
    global _takefour_index
    if _takefour_index is None:
        from parlor.lexicon import enable1
        from parlor.rules.takefour import WordIndex

        _takefour_index = WordIndex(enable1().words())
    return _takefour_index


UPWORDS_LOOKS = 60
"""Plays an Upwords player weighs before it moves: the best of the first this many the move
generator finds. A person does not weigh every play, and the full search (8-10 ms a move)
was a third of the load's CPU, taken from the server on the same machine."""


def think_upwords(game_bytes: bytes, looks: int | None = UPWORDS_LOOKS) -> tuple[str, Any]:
    """The best of the first ``looks`` plays of the rack on the board shown (None: of every
    play); else exchange the worst tile, or pass."""
    from parlor.rules import upwords as uw
    from parlor.rules.upwords.bot import UpwordsBot, _order
    from parlor.rules.upwords.movegen import generate

    game = uwpb.Game.FromString(game_bytes)
    board = uw.Board(tuple(tuple(stack.tiles) for stack in game.board))
    rack = list(game.rack)
    plural = game.config.plural_rule if game.config.HasField("plural_rule") else True
    looked = itertools.islice(generate(board, rack, _upwords().lexicon, plural_rule=plural), looks)
    best = min(looked, key=_order, default=None)
    if best is not None:
        return "play", [(p.row, p.col, p.tile) for p in best.placements]
    if game.bag_count > 0 and not game.retry and rack:
        return "exchange", UpwordsBot.worst_tile(rack)
    return "pass", None


def think_takefour(key: str, game_bytes: bytes, refused: bool) -> tuple[str, dict[str, Any]] | None:
    """The next step of this seat's bot on the view shown, as an RPC name and its fields."""
    from parlor.rules import takefour as tf
    from parlor.rules.takefour import BotSeat, TakeFourBot

    game = tfpb.Game.FromString(game_bytes)
    seat = _takefour_seats.get(key)
    if seat is None:
        seat = _takefour_seats[key] = [BotSeat(TakeFourBot(_takefour())), -1]
    bot, round_seen = seat
    if refused:
        bot.refused()
    if game.round != round_seen:
        bot.new_round()
        seat[1] = game.round
    command = bot.next_command(takefour_view(game))
    match command:
        case None:
            return None
        case tf.PlaceTile(_, tile, x, y, letter):
            return "PlaceTile", {"tile": tile, "x": x, "y": y, "letter": letter or ""}
        case tf.MoveTile(_, fx, fy, tx, ty, letter):
            return "MoveTile", {
                "to": tfpb.Cell(x=tx, y=ty),
                "letter": letter or "",
                "from": tfpb.Cell(x=fx, y=fy),
            }
        case tf.TakeBackTile(_, x, y):
            return "TakeBackTile", {"cell": tfpb.Cell(x=x, y=y)}
        case tf.SwapJoker(_, tile, x, y):
            return "SwapJoker", {"tile": tile, "cell": tfpb.Cell(x=x, y=y)}
        case tf.CallTakeFour():
            return "CallTakeFour", {}
        case tf.AgreeToDeal():
            return "AgreeToDeal", {}
        case tf.WithdrawAgreement():
            return "WithdrawAgreement", {}
        case tf.CallDone():
            return "CallDone", {}
    raise ValueError(f"the bot chose a command no RPC sends: {command!r}")


def forget_takefour(key: str) -> None:
    _takefour_seats.pop(key, None)


def takefour_view(game: tfpb.Game) -> Any:
    """The engine's ``TakeFourView`` of what the ``Game`` message shows this seat."""
    from parlor.rules import takefour as tf
    from parlor.rules.takefour.state import Placement, RoundResult
    from parlor.rules.takefour.view import SeatView, TakeFourView
    from parlor.services.takefour.game import config_of

    phases = {
        tfpb.PHASE_BETWEEN_ROUNDS: tf.Phase.BETWEEN_ROUNDS,
        tfpb.PHASE_PLAYING: tf.Phase.PLAYING,
        tfpb.PHASE_OVER: tf.Phase.OVER,
    }
    seats = tuple(
        SeatView(
            seat=i,
            player_id=s.seat.player_id,
            in_hand=s.in_hand,
            on_grid=s.on_grid,
            agrees_to_deal=s.agrees_to_deal,
            calls=s.calls,
            total=s.total,
            hand=tuple(sorted(t.id for t in s.hand)) if s.visible else None,
            grid={(g.x, g.y): Placement(g.tile, g.letter) for g in s.grid} if s.visible else None,
        )
        for i, s in enumerate(game.seats)
    )
    return TakeFourView(
        viewer=game.viewer_seat if game.HasField("viewer_seat") else None,
        phase=phases.get(game.phase, tf.Phase.NOT_CREATED),
        config=config_of(game.config),
        round=game.round,
        bag_count=game.bag_count,
        unused_count=game.unused_count,
        seats=seats,
        results=tuple(RoundResult(r.round, r.done_seat, tuple(r.scores)) for r in game.results),
    )
