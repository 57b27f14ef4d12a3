"""Throughput with 1 and 2 worker processes: Connect 4x4 PlayMove at 50 games at once.

The server is ``parlor-platform --only connect4x4 --workers N`` in a process of its own
(N = 1, then 2, in the same run, on the same scratch database), on PostgreSQL and NATS
found as the tests find them. The load comes from two helper processes, 25 games each,
each game its own connection (so the kernel spreads them over the workers), random legal
moves, new games as games end, for a fixed window. Printed: moves/s, p50/p99, and the
ratio of 2 workers to 1, beside the cores each server used (read from its processes),
the moves per server core, and the cores the whole machine was busy: two workers can
only double the moves if the machine has two cores to spare for them beside the load,
PostgreSQL and NATS. A helper that dies fails the run at once (its traceback is on
stderr); so does a server that dies (with its last output).

    python bench/workers_bench.py [--quick]
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import random
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psutil

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


def _load_cpu(server_pid: int) -> float:
    """CPU seconds so far of this process's children that are not the server's (the helpers)."""
    ours = psutil.Process().children(recursive=True)
    server = {server_pid} | {p.pid for p in psutil.Process(server_pid).children(recursive=True)}
    total = 0.0
    for proc in ours:
        if proc.pid in server:
            continue
        with contextlib.suppress(psutil.NoSuchProcess):
            times = proc.cpu_times()
            total += times.user + times.system
    return total


def _busy() -> float:
    """CPU seconds the whole machine has been busy (every process, everyone's)."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


@dataclass
class Measured:
    rate: float
    p50: float
    p99: float
    server: float
    """cores the server used (its workers together)"""
    load: float
    machine: float
    """cores the whole machine used (the server, the load, PostgreSQL, NATS, and others' work)"""

    @property
    def per_core(self) -> float:
        """Moves per second per core of server CPU."""
        return self.rate / self.server if self.server else float("nan")


async def measure(
    settings: dict[str, str], workers: int, pool: concurrent.futures.Executor
) -> Measured:
    loop = asyncio.get_running_loop()
    async with ServerProcess.platform(settings, ["connect4x4"], workers) as server:
        assert server.process is not None
        pid = server.process.pid
        cpu, load, busy = server.cpu_seconds(), _load_cpu(pid), _busy()
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
        cpu, load = server.cpu_seconds() - cpu, _load_cpu(pid) - load
        busy = _busy() - busy
    latencies = [x for part in parts for x in part]
    return Measured(
        len(latencies) / elapsed,
        pct(latencies, 0.5),
        pct(latencies, 0.99),
        cpu / elapsed,
        load / elapsed,
        busy / elapsed,
    )


async def main(settings: dict[str, str]) -> None:
    await migrate(settings["PARLOR_DATABASE_URL"])
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(HELPERS, mp_context=spawn) as pool:
        # the helpers started (and their imports done) before any CPU is counted
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(pool, time.sleep, 0.5) for _ in range(HELPERS)))
        one = await measure(settings, 1, pool)
        two = await measure(settings, 2, pool)
    print(
        f"Connect 4x4 PlayMove, {GAMES} games at once from {HELPERS} load processes,"
        f" {SECONDS:.0f} s each{' (quick run)' if QUICK else ''}"
    )
    print(
        f"{'server':<22}{'moves/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'srv cores':>10}"
        f"{'moves/s/core':>13}{'load':>6}{'machine':>8}"
    )
    for name, m in (("1 worker (baseline)", one), ("2 workers", two)):
        print(
            f"{name:<22}{m.rate:>9.0f}{m.p50:>8.1f}{m.p99:>8.1f}{m.server:>10.2f}"
            f"{m.per_core:>13.0f}{m.load:>6.2f}{m.machine:>8.2f}"
        )
    print(
        f"2 workers / 1 worker: {two.rate / one.rate:.2f}x throughput,"
        f" {two.server / one.server:.2f}x server cores, {two.per_core / one.per_core:.2f}x"
        f" moves per server core (machine: {psutil.cpu_count()} cores; load, PostgreSQL, NATS"
        " and whatever else runs here share them: the machine column)"
    )


if __name__ == "__main__":
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as found:
            asyncio.run(main(found))
