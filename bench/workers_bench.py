"""Throughput with 1 and 2 worker processes: Connect 4x4 PlayMove at 50 games at once.

The server is ``parlor-platform --only connect4x4 --workers N`` in a process of its own
(N = 1, then 2, in the same run, on the same scratch database), on PostgreSQL and NATS
found as the tests find them. The load comes from two helper processes, 25 games each,
each game its own connection (so the kernel spreads them over the workers), random legal
moves, new games as games end, for a fixed window. Printed: moves/s, p50/p99, and the
ratio of 2 workers to 1. A helper that dies fails the run at once (its traceback is on
stderr); so does a server that dies (with its last output).

    python bench/workers_bench.py [--quick]
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from benchkit import AUTH, QUICK, ServerProcess, pct

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import migrate
from parlor.kit import client
from parlor.kit.auth import issue_token

GAMES = 50
HELPERS = 2
SECONDS = 8.0 if QUICK else 30.0


async def _games(target: str, games: int, seconds: float, seed: int) -> list[float]:
    latencies: list[float] = []
    deadline = time.monotonic() + seconds

    async def lane(rng: random.Random) -> None:
        player = f"w-{uuid.uuid4().hex[:10]}"
        seats = [common_pb2.Seat(player_id=player), common_pb2.Seat(player_id=player)]
        async with client.channel(target, issue_token(AUTH, player)) as ch:
            stub = pb_grpc.Connect4x4ServiceStub(ch)
            while time.monotonic() < deadline:
                game = (
                    await stub.CreateGame(
                        pb.CreateGameRequest(game_id=uuid.uuid4().hex, seats=seats)
                    )
                ).game
                n = 0
                while game.status == pb.STATUS_IN_PROGRESS and time.monotonic() < deadline:
                    started = time.perf_counter()
                    game = (
                        await stub.PlayMove(
                            pb.PlayMoveRequest(
                                game_id=game.game_id,
                                move=rng.choice(list(game.legal_moves)),
                                command_id=f"m{n}",
                                seat=game.turn,
                            )
                        )
                    ).game
                    latencies.append((time.perf_counter() - started) * 1000)
                    n += 1

    rng = random.Random(seed)
    await asyncio.gather(*(lane(random.Random(rng.random())) for _ in range(games)))
    return latencies


def helper(target: str, games: int, seconds: float, seed: int) -> list[float]:
    """One load process: ``games`` lanes for ``seconds``; the latencies of its moves (ms)."""
    return asyncio.run(_games(target, games, seconds, seed))


async def measure(
    settings: dict[str, str], workers: int, pool: concurrent.futures.Executor
) -> tuple[float, float, float]:
    loop = asyncio.get_running_loop()
    async with ServerProcess.platform(settings, ["connect4x4"], workers) as server:
        started = time.perf_counter()
        parts = await server.guarded(
            asyncio.gather(
                *(
                    loop.run_in_executor(
                        pool, helper, server.target, GAMES // HELPERS, SECONDS, workers * 10 + i
                    )
                    for i in range(HELPERS)
                )
            )
        )
        elapsed = time.perf_counter() - started
    latencies = [x for part in parts for x in part]
    return len(latencies) / elapsed, pct(latencies, 0.5), pct(latencies, 0.99)


async def main(settings: dict[str, str]) -> None:
    await migrate(settings["PARLOR_DATABASE_URL"])
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(HELPERS, mp_context=spawn) as pool:
        one = await measure(settings, 1, pool)
        two = await measure(settings, 2, pool)
    print(
        f"Connect 4x4 PlayMove, {GAMES} games at once from {HELPERS} load processes,"
        f" {SECONDS:.0f} s each{' (quick run)' if QUICK else ''}"
    )
    print(f"{'server':<28}{'moves/s':>9}{'p50 ms':>9}{'p99 ms':>9}")
    for name, (rate, p50, p99) in (("1 worker (baseline)", one), ("2 workers", two)):
        print(f"{name:<28}{rate:>9.0f}{p50:>9.1f}{p99:>9.1f}")
    print(f"2 workers / 1 worker: {two[0] / one[0]:.2f}x")


if __name__ == "__main__":
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as found:
            asyncio.run(main(found))
