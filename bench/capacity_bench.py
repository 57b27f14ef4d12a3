"""Human-pace capacity: the most concurrent games (all three kinds) with p99 move latency ≤ 150 ms.

Players think 1-3 s before each move (uniform), as people do; otherwise they are the load
run's players (``load_players.py``: through matchmaking, each seeing only its own seat).
Steps of growing size (half Connect 4x4, a quarter each Upwords and Take Four), each on a
freshly started platform (``parlor-platform`` as ``make run`` runs it, one worker per
core) for a fixed window; after each window the players stop where they are and every
event a reply acknowledged is checked to be in the store and on NATS exactly once. The
run stops at the first step whose p99 is over the bound or that lost or duplicated an
event, or when the time budget is spent; the capacity is the largest step that passed.
Bounded in time: steps x (window + start + check), the budget cuts it short.

The baseline, measured in the same run: the same platform at the smallest step with no
thinking time (players move as fast as they can), to show what the pace buys.

    python bench/capacity_bench.py [--quick]
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from benchkit import QUICK, pct
from load_bench import Platform, check, parse_mix, play
from load_players import Tally, warm_up

from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import migrate

BOUND_MS = 150.0
PACE = (1.0, 3.0)
MIX = "connect4x4=2,upwords=1,takefour=1"
STEPS = (8, 20) if QUICK else (100, 250, 500, 1000, 2000, 3000)
WINDOW = 15 if QUICK else 45
BUDGET = 150 if QUICK else 720  # seconds for all steps together


async def step(
    settings: dict[str, str],
    games: int,
    pace: tuple[float, float] | None,
    pool: concurrent.futures.Executor,
    tag: str,
) -> tuple[dict[str, Tally], tuple[int, int, int], dict[str, int]]:
    database_url, nats_url = settings["PARLOR_DATABASE_URL"], settings["PARLOR_NATS_URL"]
    prefix, stream = settings["PARLOR_NATS_SUBJECT_PREFIX"], settings["PARLOR_NATS_STREAM"]
    async with Platform(database_url, nats_url, prefix, stream) as platform:
        tallies, _, failures, _ = await play(
            platform.target, parse_mix(MIX, games), WINDOW, 0, pool, pace, tag
        )
        await asyncio.sleep(3)  # the relays publish the last events
        verdict = await check(tallies, database_url, nats_url, prefix, stream)
    return tallies, verdict, failures


def line(games: int, tallies: dict[str, Tally], verdict: tuple[int, int, int]) -> str:
    every = [x for t in tallies.values() for x in t.latencies]
    acked = sum(len(t.acked) for t in tallies.values())
    per_type = "  ".join(
        f"{name} p99 {pct(t.latencies, 0.99):.0f}" for name, t in tallies.items() if t.latencies
    )
    return (
        f"{games:>6}{len(every):>8}{len(every) / WINDOW:>8.0f}"
        f"{statistics.median(every or [0]):>8.1f}{pct(every, 0.99):>8.1f}"
        f"{acked:>8}{verdict[0]:>6}{verdict[1]:>6}{verdict[2]:>6}   {per_type}"
    )


async def main(settings: dict[str, str]) -> int:
    await migrate(settings["PARLOR_DATABASE_URL"])
    spawn = multiprocessing.get_context("spawn")
    started = time.monotonic()
    rows: list[str] = []
    capacity = 0
    stopped = "every step passed"
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        await asyncio.get_running_loop().run_in_executor(pool, warm_up)
        base, base_verdict, base_failures = await step(settings, STEPS[0], None, pool, "fast")
        for n, games in enumerate(STEPS):
            if time.monotonic() - started > BUDGET:
                stopped = f"time budget of {BUDGET} s spent before {games} games"
                break
            tallies, verdict, failures = await step(settings, games, PACE, pool, f"cap{n}")
            rows.append(line(games, tallies, verdict))
            every = [x for t in tallies.values() for x in t.latencies]
            if failures:
                rows.append(f"        players that failed: {failures}")
            if any(verdict) or failures:
                stopped = f"{games} games lost, duplicated an event or a player failed"
                break
            if pct(every, 0.99) > BOUND_MS:
                stopped = f"{games} games: p99 {pct(every, 0.99):.0f} ms > {BOUND_MS:.0f} ms"
                break
            capacity = games
    header = (
        f"{'games':>6}{'calls':>8}{'calls/s':>8}{'p50 ms':>8}{'p99 ms':>8}"
        f"{'acked':>8}{'lost':>6}{'!nats':>6}{'twice':>6}"
    )
    print(
        f"Human-pace capacity: players think {PACE[0]:.0f}-{PACE[1]:.0f} s per move; mix {MIX};"
        f" {WINDOW} s per step{' (quick run)' if QUICK else ''}; bound p99 <= {BOUND_MS:.0f} ms"
    )
    print(header)
    print(*rows, sep="\n")
    print(f"capacity: {capacity} concurrent games ({stopped})")
    print("baseline, same run: the first step with no thinking time (players as fast as they can)")
    print(header)
    print(line(STEPS[0], base, base_verdict))
    if base_failures:
        print(f"        players that failed: {base_failures}")
    lost = any(base_verdict) or bool(base_failures) or "lost" in stopped
    return 1 if lost else 0  # a latency over the bound ends the search; a lost event fails


if __name__ == "__main__":
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as found:
            sys.exit(asyncio.run(main(found)))
