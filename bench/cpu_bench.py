"""Server CPU time per call of each game's main move RPC, beside a bare gRPC echo's.

Each server runs in a process of its own (``parlor-platform --only <game> [dictionary]``,
as ``make run`` runs it, one worker), on PostgreSQL and NATS found as the tests find
them, in a scratch database and stream. The games are created first; then, for the
measured window, the clients make only the move calls: Connect 4x4 ``PlayMove`` (a
random legal move), Upwords ``Play`` (the best play of the mover's rack, found by the
rules library's bot in a helper process outside the server; a rack with no play
exchanges or passes, and those calls are counted too), Take Four ``PlaceTile`` (every
tile of each hand, one by one). The server's CPU time (user + system, its process
and any under it, from /proc via psutil) over the window, less what it spends idle
(relays and timers, measured just before), divided by the calls made. The baseline,
measured in the same run the same way: a bare ``grpc.aio`` unary echo server (no
interceptors, no token) in its own process, 64-byte messages.

Each at 1 game (calls one after another) and at 50 games at once.

    python bench/cpu_bench.py [--quick] [--profile] [--against=DIR] [GAME ...]

GAME: connect4x4, upwords, takefour, platform or floor.

``--against=DIR`` measures another checkout's server (``DIR/.venv/bin/parlor-platform``,
main's, say) beside this one's, in the same run and on the same machine at once, each on a
scratch database of its own: at one caller in 1 s windows taken in turn, at 50 both loads
at once; its rows are marked ``[DIR's name]``.

The floors (``floor.py``) are what any grpc.aio server on these libraries spends on a call
shaped like a move: the call alone (a token, a move's request and reply sizes), then with
a durable append, then with a JetStream publish too; they run unless names pick only
games (``floor`` picks them). Names pick the games (the echo always runs); ``platform`` is
Connect 4x4 ``PlayMove`` again on a server hosting every service, as ``make run`` does.
``--profile`` records each game server with py-spy during its 50-game window
(``bench/reports/profile-<game>.txt``: collapsed stacks, for ``flamegraph.pl`` or
speedscope; the figures of a profiled run are slower).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).parent))

import floor
from benchkit import (
    AUTH,
    ECHO,
    QUICK,
    ServerProcess,
    free_port,
    pct,
    platform_env,
    profile,
)
from load_players import think_upwords, warm_up

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4grpc
from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import migrate
from parlor.kit import client
from parlor.kit.auth import issue_token
from parlor.takefour.v1 import takefour_pb2 as tfpb
from parlor.takefour.v1 import takefour_pb2_grpc as tfgrpc
from parlor.upwords.v1 import upwords_pb2 as uwpb
from parlor.upwords.v1 import upwords_pb2_grpc as uwgrpc

CONCURRENCY = (1, 50)
PLATFORM = ("connect4x4", "upwords", "takefour", "matchmaking", "dictionary", "scoring")
ONLY = [a for a in sys.argv[1:] if not a.startswith("--")]
PROFILE = "--profile" in sys.argv[1:]
AGAINST = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--against=")), None)
WINDOW = 6.0 if QUICK else 20.0  # seconds of move calls per measurement, at most
IDLE = 1.0 if QUICK else 3.0


@dataclass
class Calls:
    """What the clients saw in one window: call latencies (ms) and how long it took."""

    latencies: list[float] = field(default_factory=list)
    elapsed: float = 0.0

    async def timed(self, call: Awaitable[Any]) -> Any:
        started = time.perf_counter()
        reply = await call
        self.latencies.append((time.perf_counter() - started) * 1000)
        return reply


Lane = Callable[[Calls, float], Awaitable[None]]
"""One game's moves (or one caller's), until done or the deadline (time.monotonic)."""


# -- the games: create (untimed), then a lane of move calls -------------------------------------


async def connect4x4_lane(target: str, games: int) -> Lane:
    """``games`` Connect 4x4 games, played one after another: random legal moves."""
    player = f"c4-{uuid.uuid4().hex[:8]}"
    ch = client.channel(target, issue_token(AUTH, player))
    stub = c4grpc.Connect4x4ServiceStub(ch)
    seats = [common_pb2.Seat(player_id=player), common_pb2.Seat(player_id=player)]
    created = [
        (await stub.CreateGame(c4pb.CreateGameRequest(game_id=uuid.uuid4().hex, seats=seats))).game
        for _ in range(games)
    ]
    rng = random.Random(player)

    async def lane(calls: Calls, deadline: float) -> None:
        try:
            for game in created:
                n = 0
                while game.status == c4pb.STATUS_IN_PROGRESS and time.monotonic() < deadline:
                    request = c4pb.PlayMoveRequest(
                        game_id=game.game_id,
                        move=rng.choice(list(game.legal_moves)),
                        command_id=f"m{n}",
                        seat=game.turn,
                    )
                    game = (await calls.timed(stub.PlayMove(request))).game
                    n += 1
        finally:
            await ch.close()

    return lane


async def two_players(
    target: str, stub_type: Callable[[grpc.aio.Channel], Any]
) -> tuple[list[str], list[grpc.aio.Channel], list[Any]]:
    """Two new players, each with a channel of its own: their ids, channels and stubs."""
    tag = uuid.uuid4().hex[:8]
    players = [f"p-{tag}-{i}" for i in range(2)]
    channels = [client.channel(target, issue_token(AUTH, p)) for p in players]
    return players, channels, [stub_type(ch) for ch in channels]


async def new_game(
    target: str,
    stub_type: Callable[[grpc.aio.Channel], Any],
    create: Callable[..., Any],
    players: Sequence[str],
) -> str:
    """A new game of ``players``, created by a platform service (a player may seat only
    themselves and bots): its id."""
    game_id = uuid.uuid4().hex
    seats = [common_pb2.Seat(player_id=p) for p in players]
    service = issue_token(
        AUTH, "service:bench", roles=("service",), audience=("upwords", "takefour")
    )
    async with client.channel(target, service) as ch:
        await stub_type(ch).CreateGame(create(game_id=game_id, seats=seats))
    return game_id


async def upwords_lane(target: str, games: int, pool: concurrent.futures.Executor) -> Lane:
    """An Upwords game of two players, each playing its own rack's best play."""
    players, channels, stubs = await two_players(target, uwgrpc.UpwordsServiceStub)
    game_id = await new_game(target, uwgrpc.UpwordsServiceStub, uwpb.CreateGameRequest, players)
    views = [(await s.GetGame(uwpb.GetGameRequest(game_id=game_id))).game for s in stubs]
    loop = asyncio.get_running_loop()

    async def lane(calls: Calls, deadline: float) -> None:
        try:
            game = views[0]
            n = 0
            while game.status == uwpb.STATUS_IN_PROGRESS and time.monotonic() < deadline:
                seat = game.to_move
                mine = views[seat]
                if mine.version != game.version:
                    # The board as the last reply showed it, with the mover's own rack (which
                    # the other seat's move did not change): no GetGame, whose CPU would be
                    # counted against Play.
                    mine = uwpb.Game()
                    mine.CopyFrom(game)
                    del mine.rack[:]
                    mine.rack.extend(views[seat].rack)
                kind, detail = await loop.run_in_executor(
                    pool, think_upwords, mine.SerializeToString(), None
                )
                cid = f"m{n}"
                call: Any
                if kind == "play":
                    placements = [uwpb.Placement(row=r, col=c, tile=t) for r, c, t in detail]
                    call = stubs[seat].Play(
                        uwpb.PlayRequest(game_id=game_id, placements=placements, command_id=cid)
                    )
                elif kind == "exchange":
                    call = stubs[seat].Exchange(
                        uwpb.ExchangeRequest(game_id=game_id, tile=detail, command_id=cid)
                    )
                else:
                    call = stubs[seat].Pass(uwpb.PassRequest(game_id=game_id, command_id=cid))
                game = (await calls.timed(call)).game
                views[seat] = game
                n += 1
        finally:
            for ch in channels:
                await ch.close()

    return lane


async def takefour_lane(target: str, games: int) -> Lane:
    """Take Four games of two players, one after another: each places its hand in a row."""
    players, channels, stubs = await two_players(target, tfgrpc.TakeFourServiceStub)
    tables = []
    # a game here is its first deal, 8 calls: a third of a Connect 4x4 game
    for _ in range(games * 3):
        game_id = await new_game(
            target, tfgrpc.TakeFourServiceStub, tfpb.CreateGameRequest, players
        )
        hands = []
        for seat, stub in enumerate(stubs):
            view = (await stub.GetGame(tfpb.GetGameRequest(game_id=game_id))).game
            hands.append([(t.id, t.face) for t in view.seats[seat].hand])
        tables.append((game_id, hands))

    async def lane(calls: Calls, deadline: float) -> None:
        try:
            for game_id, hands in tables:
                n = 0
                for x in range(max(len(h) for h in hands)):
                    for seat, hand in enumerate(hands):
                        if x >= len(hand) or time.monotonic() >= deadline:
                            continue
                        tile, face = hand[x]
                        request = tfpb.PlaceTileRequest(
                            game_id=game_id,
                            command_id=f"p{seat}-{n}",
                            tile=tile,
                            x=x,
                            y=0,
                            letter="E" if face == "?" else "",
                        )
                        await calls.timed(stubs[seat].PlaceTile(request))
                        n += 1
        finally:
            for ch in channels:
                await ch.close()

    return lane


async def echo_lane(target: str, games: int) -> Lane:
    ch = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
    call = ch.unary_unary(ECHO)
    per_lane = 400 if QUICK else 2000

    async def lane(calls: Calls, deadline: float) -> None:
        try:
            for _ in range(per_lane):
                if time.monotonic() >= deadline:
                    break
                await calls.timed(call(b"x" * 64))
        finally:
            await ch.close()

    return lane


async def floor_lane(target: str, games: int) -> Lane:
    """Move-shaped calls to a floor server (``floor.py``): a token, a 45-byte request."""
    player = f"floor-{uuid.uuid4().hex[:8]}"
    ch = client.channel(target, issue_token(AUTH, player))
    call = ch.unary_unary(floor.METHOD)
    game_id = uuid.uuid4().hex
    per_lane = 400 if QUICK else 2000

    async def lane(calls: Calls, deadline: float) -> None:
        try:
            for n in range(per_lane):
                if time.monotonic() >= deadline:
                    break
                request = c4pb.PlayMoveRequest(game_id=game_id, move="df", command_id=f"m{n}")
                await calls.timed(call(request.SerializeToString()))
        finally:
            await ch.close()

    return lane


FLOORS = {
    "call": "floor: the call (token, 1.2 KB reply)",
    "append": "floor: + durable append",
    "publish": "floor: + append + JetStream publish",
}


# -- a measurement -----------------------------------------------------------------------------


@dataclass
class Figure:
    name: str
    concurrency: int
    calls: int
    cpu_ms_per_call: float
    calls_per_s: float
    p50: float
    p99: float


async def measure(
    name: str,
    server: ServerProcess,
    make_lane: Callable[[str, int], Awaitable[Lane]],
    concurrency: int,
) -> Figure:
    # games one after another in each lane, so the window is not cut short by games ending
    # (at one caller, as many as a window takes: a Connect 4x4 game is 20-40 moves)
    games_per_lane = int(WINDOW * 20) if concurrency == 1 else (3 if QUICK else 10)
    lanes = [await make_lane(server.target, games_per_lane) for _ in range(concurrency)]
    idle = await server.idle_cpu_rate(IDLE)
    calls = Calls()
    profiler = profiled(server, name) if PROFILE and concurrency > 1 else None
    before = server.cpu_seconds()
    started = time.perf_counter()
    deadline = time.monotonic() + WINDOW
    try:
        await server.guarded(asyncio.gather(*(lane(calls, deadline) for lane in lanes)))
    finally:
        if profiler is not None:
            profiler.send_signal(signal.SIGINT)
            await asyncio.to_thread(profiler.wait, 30)
    calls.elapsed = time.perf_counter() - started
    cpu = server.cpu_seconds() - before - idle * calls.elapsed
    n = len(calls.latencies)
    return Figure(
        name,
        concurrency,
        n,
        1000 * max(cpu, 0.0) / max(n, 1),
        n / calls.elapsed,
        pct(calls.latencies, 0.5),
        pct(calls.latencies, 0.99),
    )


def profiled(server: ServerProcess, name: str) -> subprocess.Popen[bytes]:
    """py-spy recording the server (and its workers) until interrupted."""
    assert server.process is not None
    # "Take Four PlaceTile" -> takefour, "Connect 4x4 PlayMove (platform)" -> connect4x4-platform
    words = name.lower().replace("(", "").replace(")", "").split()
    slug = (
        f"{''.join(words[:2])}-platform"
        if words[-1] == "platform"
        else "".join(words[:-1]) or "server"
    )
    return profile(server.process.pid, slug)


async def paired(
    name: str,
    servers: Sequence[ServerProcess],
    make_lane: Callable[[str, int], Awaitable[Lane]],
    concurrency: int,
) -> list[Figure]:
    """The same calls on two servers at the same time, so that both see the same machine:
    at one caller, 1 s windows taken in turn (each server's CPU counted over its own);
    at more, both loads at once."""
    idle = [await server.idle_cpu_rate(IDLE) for server in servers]
    cpu = [0.0 for _ in servers]
    seen = [Calls() for _ in servers]
    if concurrency == 1:
        for window in range(WINDOW_PAIRS):
            for i in (0, 1) if window % 2 == 0 else (1, 0):
                lane = await make_lane(servers[i].target, 25)
                calls, before, started = Calls(), servers[i].cpu_seconds(), time.perf_counter()
                await servers[i].guarded(lane(calls, time.monotonic() + 1.0))
                calls.elapsed = time.perf_counter() - started
                cpu[i] += servers[i].cpu_seconds() - before - idle[i] * calls.elapsed
                seen[i].latencies += calls.latencies
                seen[i].elapsed += calls.elapsed
    else:
        games = 3 if QUICK else 10
        lanes = [[await make_lane(s.target, games) for _ in range(concurrency)] for s in servers]
        before = [server.cpu_seconds() for server in servers]
        deadline, started = time.monotonic() + WINDOW, time.perf_counter()

        async def load(i: int) -> None:
            await servers[i].guarded(
                asyncio.gather(*(lane(seen[i], deadline) for lane in lanes[i]))
            )
            seen[i].elapsed = time.perf_counter() - started

        await asyncio.gather(load(0), load(1))
        for i, server in enumerate(servers):
            cpu[i] = server.cpu_seconds() - before[i] - idle[i] * seen[i].elapsed
    return [
        Figure(
            f"{name}{'' if i == 0 else ' [' + Path(str(AGAINST)).name + ']'}",
            concurrency,
            len(calls.latencies),
            1000 * max(cpu[i], 0.0) / max(len(calls.latencies), 1),
            len(calls.latencies) / max(calls.elapsed, 1e-9),
            pct(calls.latencies, 0.5),
            pct(calls.latencies, 0.99),
        )
        for i, calls in enumerate(seen)
    ]


WINDOW_PAIRS = 6 if QUICK else 20
SERVER_URL: list[str] = []  # the PostgreSQL server the scratch databases are made on


@contextlib.asynccontextmanager
async def servers_of(
    settings: dict[str, str], services: list[str]
) -> AsyncIterator[list[ServerProcess]]:
    """This checkout's server, and with ``--against=DIR`` that checkout's beside it (on a
    scratch database and stream of its own)."""
    async with contextlib.AsyncExitStack() as stack:
        found = [await stack.enter_async_context(ServerProcess.platform(settings, services))]
        if AGAINST is not None:
            theirs = stack.enter_context(
                scratch_settings(SERVER_URL[0], settings["PARLOR_NATS_URL"], "bench")
            )
            await migrate(theirs["PARLOR_DATABASE_URL"])
            port = free_port()
            command = [
                str(Path(AGAINST) / ".venv" / "bin" / "parlor-platform"),
                *("--workers", "1", "--only", *services),
            ]
            other = ServerProcess(command, platform_env(theirs, port), port)
            found.append(await stack.enter_async_context(other))
        yield found


async def settled(server: ServerProcess, most: float = 0.05, seconds: float = 90.0) -> None:
    """Wait until the server idles (a dictionary served beside a game builds its index
    after start-up, which would be counted against the first window's calls)."""
    deadline = time.monotonic() + seconds
    while await server.idle_cpu_rate(1.0) > most and time.monotonic() < deadline:
        pass


async def main(settings: dict[str, str]) -> list[Figure]:
    await migrate(settings["PARLOR_DATABASE_URL"])
    figures: list[Figure] = []
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        await asyncio.get_running_loop().run_in_executor(pool, warm_up)
        async with ServerProcess.echo() as echo:
            for n in CONCURRENCY:
                figures.append(await measure("bare grpc.aio echo (baseline)", echo, echo_lane, n))
        for level, name in FLOORS.items():
            if ONLY and "floor" not in ONLY:
                break
            port = free_port()
            command = [sys.executable, floor.__file__, level, str(port)]
            async with ServerProcess(command, platform_env(settings, port), port) as server:
                for n in CONCURRENCY:
                    figures.append(await measure(name, server, floor_lane, n))
        games: list[tuple[str, list[str], Callable[[str, int], Awaitable[Lane]]]] = [
            ("Connect 4x4 PlayMove", ["connect4x4"], connect4x4_lane),
            (
                "Upwords Play",
                ["upwords", "dictionary"],
                lambda target, n: upwords_lane(target, n, pool),
            ),
            ("Take Four PlaceTile", ["takefour", "dictionary"], takefour_lane),
            # the same moves on a server hosting every service, as ``make run`` does: one
            # relay (and NATS connection) for all its games, the others idle beside it
            ("Connect 4x4 PlayMove (platform)", list(PLATFORM), connect4x4_lane),
        ]
        for name, services, lane in games:
            key = "platform" if "(platform)" in name else services[0]
            if ONLY and key not in ONLY:
                continue
            async with servers_of(settings, services) as servers:
                for server in servers:
                    await settled(server)
                for n in CONCURRENCY:
                    if len(servers) > 1:
                        figures += await paired(name, servers, lane, n)
                    else:
                        figures.append(await measure(name, servers[0], lane, n))
    return figures


def report(figures: list[Figure]) -> None:
    echo = {f.concurrency: f for f in figures if "echo" in f.name}
    print(
        "Server CPU time per call (user + system of the server process, idle time taken off),"
        f" {'quick run: ' if QUICK else ''}windows of at most {WINDOW:.0f} s"
    )
    print(
        f"{'call':<42}{'games':>6}{'calls':>7}{'CPU ms/call':>12}{'x echo':>8}"
        f"{'calls/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
    )
    for f in figures:
        ratio = f.cpu_ms_per_call / echo[f.concurrency].cpu_ms_per_call
        print(
            f"{f.name:<42}{f.concurrency:>6}{f.calls:>7}{f.cpu_ms_per_call:>12.3f}"
            f"{ratio:>8.1f}{f.calls_per_s:>9.0f}{f.p50:>9.2f}{f.p99:>9.2f}"
        )
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    with find_backends() as backends:
        SERVER_URL.append(backends.database_url)
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as found:
            report(asyncio.run(main(found)))
