"""Another caller's latency while one player makes bots think in as many games as the cap allows.

Issue 37: a player's bots must not slow the platform for everyone. The server runs in its
own process (``parlor-platform --only connect4x4 dictionary takefour``) on a scratch
database and stream. A probe, another player, calls ``GetGame`` on a game of its own every
``PROBE_EVERY`` seconds and its latencies are recorded:

1. idle: the platform with nothing else to do (the baseline, same run, same server);
2. bots: meanwhile one guest keeps ``PARLOR_MAX_OPEN_GAMES_PER_PLAYER`` (20) Connect 4x4
   games going against three ``bot:strong`` each, moving at once whenever it is their
   turn, so that every one of their bots thinks (three searches of ~0.1 s per guest
   move, in every game, for the whole window), and half of the games are Take Four races
   against three ``bot:hard`` bots that plan all the time (no person's pace).

Target: the probe's p99 with bots at most 50 ms above its idle p99. ``--quick``: 8 s
windows (else 30 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from benchkit import AUTH, QUICK, ServerProcess, pct

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

CAP = 20
"""``PARLOR_MAX_OPEN_GAMES_PER_PLAYER``'s default: the games one player may hold."""
WINDOW = 8.0 if QUICK else 30.0
PROBE_EVERY = 0.01
TARGET_MS = 50.0
MOVES = [f"{c}{s}" for c in "abcdefg" for s in "fb"]


@contextlib.asynccontextmanager
async def player(target: str, player_id: str) -> AsyncIterator[Any]:
    async with client.channel(target, issue_token(AUTH, player_id, player_id)) as channel:
        yield channel


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p) for p in players]


async def probe(call: Callable[[], Awaitable[Any]], until: float) -> list[float]:
    """``call``'s latencies, one call every ``PROBE_EVERY`` s until ``until``."""
    latencies = []
    while time.monotonic() < until:
        started = time.perf_counter()
        await call()
        latencies.append(time.perf_counter() - started)
        await asyncio.sleep(PROBE_EVERY)
    return latencies


async def connect4x4_games(stub: Any, until: float, rng: random.Random) -> int:
    """One game after another against three strong bots, the guest moving at once; the
    guest moves it made."""
    moves = 0
    while time.monotonic() < until:
        made = await stub.CreateGame(
            c4pb.CreateGameRequest(
                seats=seats("guest", "bot:strong", "bot:strong", "bot:strong"),
                config=c4pb.Config(players=4, first_seat=0),
            )
        )
        game = made.game
        while time.monotonic() < until and game.status == c4pb.STATUS_IN_PROGRESS:
            try:
                reply = await stub.PlayMove(
                    c4pb.PlayMoveRequest(game_id=game.game_id, move=rng.choice(MOVES))
                )
            except Exception:  # a full column: another move
                continue
            game, moves = reply.game, moves + 1
        if game.status == c4pb.STATUS_IN_PROGRESS:
            with contextlib.suppress(Exception):
                await stub.Resign(c4pb.ResignRequest(game_id=game.game_id))
    return moves


async def takefour_race(stub: Any, until: float) -> None:
    """A Take Four race of three hard bots beside the guest, who leaves when the window ends."""
    made = await stub.CreateGame(
        tfpb.CreateGameRequest(seats=seats("guest", "bot:hard", "bot:hard", "bot:hard"))
    )
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    with contextlib.suppress(Exception):
        await stub.Leave(tfpb.LeaveRequest(game_id=made.game.game_id))


def line(name: str, latencies: list[float]) -> str:
    ms = [x * 1000 for x in latencies]
    return (
        f"{name:<44}{len(ms):>7}{statistics.median(ms):>9.1f}{pct(ms, 0.99):>9.1f}{max(ms):>9.1f}"
    )


async def main(settings: dict[str, str]) -> int:
    await migrate(settings["PARLOR_DATABASE_URL"])
    settings = {
        **settings,
        # Take Four's bots plan as fast as they can (a person's pace would rest them)
        "PARLOR_TAKEFOUR_BOT_HUMAN_PACE": "false",
        "PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS": "0",
    }
    services = ["connect4x4", "takefour", "dictionary"]
    async with (
        ServerProcess.platform(settings, services) as server,
        player(server.target, "probe") as probe_ch,
        player(server.target, "guest") as guest_ch,
    ):
        mine = c4grpc.Connect4x4ServiceStub(probe_ch)
        made = await mine.CreateGame(
            c4pb.CreateGameRequest(seats=seats("probe", "bot:random"), config=c4pb.Config())
        )
        game_id = made.game.game_id

        async def get() -> Any:
            return await mine.GetGame(c4pb.GetGameRequest(game_id=game_id))

        await probe(get, time.monotonic() + 2)  # warm up: channels, caches, the bot workers
        idle = await server.guarded(probe(get, time.monotonic() + WINDOW))

        c4, tf = c4grpc.Connect4x4ServiceStub(guest_ch), tfgrpc.TakeFourServiceStub(guest_ch)
        until = time.monotonic() + WINDOW
        rng = random.Random(37)
        load = asyncio.gather(
            *(connect4x4_games(c4, until, rng) for _ in range(CAP // 2)),
            *(takefour_race(tf, until) for _ in range(CAP // 2)),
        )
        busy, done = await server.guarded(asyncio.gather(probe(get, until), load))
        moves = sum(m for m in done if isinstance(m, int))
    print(
        f"Another caller's GetGame beside one player's {CAP} games of bots"
        f" ({CAP // 2} Connect 4x4 against 3 bot:strong, {CAP // 2} Take Four races of"
        f" 3 bot:hard), windows of {WINDOW:.0f} s{' (quick run)' if QUICK else ''}"
    )
    print(f"{'probe':<44}{'calls':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    print(line("idle platform (baseline)", idle))
    print(line("beside the bots", busy))
    above = (pct(busy, 0.99) - pct(idle, 0.99)) * 1000
    print(
        f"p99 above idle: {above:.1f} ms (target <= {TARGET_MS:.0f} ms:"
        f" {'met' if above <= TARGET_MS else 'NOT MET'}); the guest made {moves} Connect 4x4"
        f" moves, each answered by three strong bots"
    )
    return 0


if __name__ == "__main__":
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as found:
            raise SystemExit(asyncio.run(main(found)))
