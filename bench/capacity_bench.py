"""Human-pace capacity: the most concurrent games (all three kinds) with p99 move latency ≤ 150 ms.

Players think 1-3 s before each move (uniform), as people do; otherwise they are the load
run's players (``load_players.py``: through matchmaking, each seeing only its own seat).
Steps of growing size (half Connect 4x4, a quarter each Upwords and Take Four), each on a
freshly started platform (``parlor-platform`` as ``make run`` runs it, one worker per
core), once it has settled (its workers build their bots' word indexes after they say they
serve: ``settled``). The players of a step arrive spread over a ramp (``RAMP_RATE`` games
a second, at least ``MIN_RAMP`` seconds) and play for a fixed window once all have
arrived; a game that ends is followed by the next through matchmaking, so games are
created all along. Latency is every game command's, from the moment the call is made to
its reply, made in the window (calls made during the ramp are reported apart). After the
window the players stop where they are and every event a reply acknowledged is checked to
be in the store and on NATS exactly once. The run stops at the first step that lost or
duplicated an event, or when the time budget is spent; the capacity is the largest step
that passed with every smaller one (the steps after the first over the bound still run,
for their figures: on a shared machine one step may meet a busy moment; a step with p99
over ``ENOUGH_MS`` ends the run).

The players are spread over load processes (``GAMES_PER_LOAD`` games each, each with a
thinking process of its own for the Upwords and Take Four bots), so that no one event
loop holds thousands of players: each load process's own loop lag is reported (a
reply waits that long, at most, before its latency is read). So is what else the
machine did meanwhile: the CPU of the server, of the load, of PostgreSQL and NATS, and
of everything else (other people's work on a shared machine), and the p99 of a bare
gRPC echo server pinged ten times a second from this process: the floor the machine
itself puts under any call at that moment. Each step's games per core the server used
(``games/core``: its own processes' CPU, not the load's nor the backends') and the same at
the capacity step say what the server can do apart from what the load costs on a small
machine (the bots think in the load's processes, never in the server's).

The baseline, measured in the same run: the same platform at ``BASE_GAMES`` games with no
thinking time (players move as fast as they can), to show what the pace buys.

    python bench/capacity_bench.py [--quick] [--steps=500,1000] [--profile]

``--profile`` records the server and its workers with py-spy over each step's measured
window (``bench/reports/profile-capacity-<games>.txt``, collapsed stacks).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import multiprocessing
import signal
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).parent))

from benchkit import ECHO, QUICK, ServerProcess, pct, profile
from load_bench import AUTH, Platform, check, parse_mix
from load_players import Arrival, Tally, play_share, ready, start_thinker

from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import migrate
from parlor.kit.auth import issue_token

BOUND_MS = 150.0
ENOUGH_MS = 1000.0
"""A step this far past the bound ends the run: a larger one would only measure a machine
overloaded (at 1000 games on 2 cores matchmaking's pool timed out, INTERNAL to players)."""
PACE = (1.0, 3.0)
MIX = "connect4x4=2,upwords=1,takefour=1"
BASE_GAMES = 20 if QUICK else 100
STEPS = (20, 100) if QUICK else (100, 250, 500, 1000, 2000)
_ASKED = [a.removeprefix("--steps=") for a in sys.argv if a.startswith("--steps=")]
if _ASKED:  # e.g. --steps=500,1000: only these (to look at one size again)
    STEPS = tuple(int(n) for n in _ASKED[-1].split(","))
WINDOW = 15 if QUICK else 45
RAMP_RATE = 100.0  # games arriving a second
MIN_RAMP = 4.0 if QUICK else 10.0
GAMES_PER_LOAD = 250
BUDGET = 180 if QUICK else 660  # seconds for all steps (run_all.py stops a benchmark at 900)
PROFILE = "--profile" in sys.argv[1:]
SHARED = ("postgres", "nats-server")  # the backends, shared with whatever else runs here


@dataclass
class Machine:
    """CPU seconds per second, by whose, over a step's measured window."""

    server: float = 0.0
    load: float = 0.0
    backends: float = 0.0
    other: float = 0.0
    echo: list[float] = field(default_factory=list)


def _tree(pid: int) -> list[psutil.Process]:
    with_children = [psutil.Process(pid)]
    return with_children + with_children[0].children(recursive=True)


def _cpu(processes: list[psutil.Process]) -> dict[int, float]:
    """Each process's CPU seconds so far (the processes that still exist)."""
    found: dict[int, float] = {}
    for proc in processes:
        try:
            times = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        found[proc.pid] = times.user + times.system
    return found


def _spent(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent meanwhile by the processes there at both ends."""
    return sum(after[pid] - before[pid] for pid in after.keys() & before.keys())


def _backends() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name"]):
        if any(proc.info["name"] and proc.info["name"].startswith(n) for n in SHARED):
            found.append(proc)
    return found


def _busy() -> float:
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


async def _echo_floor(target: str, until: float, into: list[float]) -> None:
    import grpc

    async with grpc.aio.insecure_channel(target) as ch:
        call = ch.unary_unary(ECHO)
        while time.monotonic() < until:
            started = time.perf_counter()
            await call(b"x" * 64)
            into.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.1)


async def watch_machine(server_pid: int, echo: str, start: float, until: float) -> Machine:
    """What the machine spent from ``start`` to ``until``, and the echo's latencies."""
    machine = Machine()
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    server, load = (
        _tree(server_pid),
        [p for p in psutil.Process().children(recursive=True) if p.pid != server_pid],
    )
    load = [p for p in load if p.pid not in {s.pid for s in server}]
    shared = _backends()
    began, busy = time.monotonic(), _busy()
    before = [_cpu(server), _cpu(load), _cpu(shared)]
    await _echo_floor(echo, until, machine.echo)
    after = [_cpu(server), _cpu(load), _cpu(shared)]
    seconds, busy = time.monotonic() - began, _busy() - busy
    machine.server, machine.load, machine.backends = (
        _spent(a, b) / seconds for a, b in zip(before, after, strict=True)
    )
    # (PostgreSQL's backends that started or ended meanwhile count as "other")
    machine.other = max(0.0, busy / seconds - machine.server - machine.load - machine.backends)
    return machine


async def recorded(server_pid: int, slug: str, start: float, until: float) -> None:
    """py-spy recording the server's processes from ``start`` to ``until``."""
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    profiler = profile(server_pid, slug)
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    profiler.send_signal(signal.SIGINT)
    await asyncio.to_thread(profiler.wait, 30)


async def settled(server_pid: int, quiet: float = 0.3, most: float = 120.0) -> float:
    """Seconds until the server's processes use under ``quiet`` cores for a second.

    A worker says it serves before its bots' word indexes are built (in a thread of each
    worker, seconds of CPU apiece): a step started at once would measure those builds.
    """
    began = time.monotonic()
    while time.monotonic() - began < most:
        server = _tree(server_pid)
        before = _cpu(server)
        await asyncio.sleep(1.0)
        if _spent(before, _cpu(server)) < quiet:
            break
    return time.monotonic() - began


@dataclass
class Step:
    games: int
    loads: int
    tallies: dict[str, Tally]
    verdict: tuple[int, int, int]
    failures: dict[str, int]
    lag: list[float]
    machine: Machine

    @property
    def every(self) -> list[float]:
        return [x for t in self.tallies.values() for x in t.latencies]

    @property
    def p99(self) -> float:
        return pct(self.every, 0.99)


def arrivals(games: int, ramp: float, tag: str, start: float) -> list[Arrival]:
    """Two players a game, the kinds mixed, arriving one after another over ``ramp`` s."""
    every: list[tuple[float, Arrival]] = []
    seed = 7
    for game_type, count in parse_mix(MIX, games).items():
        for i in range(2 * count):
            player_id = f"{tag}-{game_type}-{i}"
            seed = (seed * 1_103_515_245 + 12_345) % 2**31
            token = issue_token(AUTH, player_id, player_id)
            # the two players of a pair together, each kind spread over the whole ramp
            every.append(((i // 2) / count, (game_type, player_id, token, seed, 0.0)))
    every.sort(key=lambda e: e[0])
    gap = ramp / max(1, len(every))
    return [(t, p, k, s, start + i * gap) for i, (_, (t, p, k, s, _)) in enumerate(every)]


async def step(
    settings: dict[str, str],
    games: int,
    pace: tuple[float, float] | None,
    pool: concurrent.futures.Executor,
    echo: str,
    tag: str,
) -> Step:
    database_url, nats_url = settings["PARLOR_DATABASE_URL"], settings["PARLOR_NATS_URL"]
    prefix, stream = settings["PARLOR_NATS_SUBJECT_PREFIX"], settings["PARLOR_NATS_STREAM"]
    loads = max(1, math.ceil(games / GAMES_PER_LOAD))
    ramp = max(MIN_RAMP, games / RAMP_RATE)
    loop = asyncio.get_running_loop()
    async with Platform(database_url, nats_url, prefix, stream) as platform:
        assert platform.process is not None
        await settled(platform.process.pid)
        start = time.monotonic() + 1.0
        measured_from, deadline = start + ramp, start + ramp + WINDOW
        everyone = arrivals(games, ramp, tag, start)
        shares = [everyone[i::loads] for i in range(loads)]
        watching = asyncio.create_task(
            watch_machine(platform.process.pid, echo, measured_from, deadline)
        )
        if PROFILE:
            profiling = asyncio.create_task(
                recorded(platform.process.pid, f"capacity-{tag}-{games}", measured_from, deadline)
            )
        parts = await asyncio.gather(
            *(
                loop.run_in_executor(
                    pool, play_share, platform.target, share, pace, measured_from, deadline
                )
                for share in shares
            )
        )
        machine = await watching
        if PROFILE:
            await profiling
        await asyncio.sleep(3)  # the relays publish the last events
        tallies: dict[str, Tally] = {}
        failures: dict[str, int] = {}
        lag: list[float] = []
        for part_tallies, part_failures, part_lag in parts:
            for name, tally in part_tallies.items():
                tallies.setdefault(name, Tally()).merge(tally)
            for key, n in part_failures.items():
                failures[key] = failures.get(key, 0) + n
            lag += part_lag
        verdict = await check(tallies, database_url, nats_url, prefix, stream)
    return Step(games, loads, tallies, verdict, failures, lag, machine)


HEADER = (
    f"{'games':>6}{'loads':>6}{'calls':>8}{'calls/s':>8}{'p50 ms':>8}{'p99 ms':>8}"
    f"{'ramp p99':>9}{'lag p99':>8}{'echo p99':>9}"
    f"{'cpu srv':>8}{'ms/call':>8}{'games/core':>11}{'load':>6}{'pg+nats':>8}{'other':>6}"
    f"{'acked':>8}{'lost':>6}{'!nats':>6}{'twice':>6}"
)


def line(s: Step) -> str:
    every = s.every
    ramp = [x for t in s.tallies.values() for x in t.ramp]
    acked = sum(len(t.acked) for t in s.tallies.values())
    m = s.machine
    return (
        f"{s.games:>6}{s.loads:>6}{len(every):>8}{len(every) / WINDOW:>8.0f}"
        f"{statistics.median(every or [0]):>8.1f}{s.p99:>8.1f}"
        f"{pct(ramp, 0.99):>9.1f}{pct(s.lag, 0.99):>8.1f}{pct(m.echo, 0.99):>9.1f}"
        f"{m.server:>8.2f}{1000 * m.server * WINDOW / max(1, len(every)):>8.1f}"
        f"{per_core(s):>11.0f}"
        f"{m.load:>6.2f}{m.backends:>8.2f}{m.other:>6.2f}"
        f"{acked:>8}{s.verdict[0]:>6}{s.verdict[1]:>6}{s.verdict[2]:>6}"
    )


def per_core(s: Step) -> float:
    """Concurrent games per core the server used meanwhile (its processes' CPU, not the
    load's, PostgreSQL's or NATS's): what the server can do, whatever the load costs."""
    return s.games / max(s.machine.server, 1e-9)


def detail(s: Step) -> str:
    """The p99 of each game type and of each of its commands, and what failed."""
    parts = []
    for name, t in s.tallies.items():
        if not t.latencies:
            continue
        calls = ", ".join(
            f"{rpc} {len(xs)} p99 {pct(xs, 0.99):.0f}"
            for rpc, xs in sorted(t.calls.items(), key=lambda kv: -len(kv[1]))
        )
        parts.append(f"{name} p99 {pct(t.latencies, 0.99):.0f} ({calls})")
    text = "        " + "; ".join(parts)
    if s.failures:
        text += f"\n        players that failed: {s.failures}"
    return text


async def main(settings: dict[str, str]) -> int:
    await migrate(settings["PARLOR_DATABASE_URL"])
    spawn = multiprocessing.get_context("spawn")
    started = time.monotonic()
    rows: list[str] = []
    capacity = 0
    at_capacity: Step | None = None
    stopped = "every step passed"
    over = ""  # the first step over the bound: the larger ones still run, for their figures
    most = max(1, math.ceil(max(STEPS) / GAMES_PER_LOAD))
    loop = asyncio.get_running_loop()
    with concurrent.futures.ProcessPoolExecutor(
        most, mp_context=spawn, initializer=start_thinker
    ) as pool:
        # every load process started and its word graphs built before any clock starts
        await asyncio.gather(*(loop.run_in_executor(pool, ready, 2.0) for _ in range(most)))
        async with ServerProcess.echo() as echo:
            base = await step(settings, BASE_GAMES, None, pool, echo.target, "fast")
            for n, games in enumerate(STEPS):
                if time.monotonic() - started > BUDGET:
                    stopped += f"; time budget of {BUDGET} s spent before {games} games"
                    break
                result = await step(settings, games, PACE, pool, echo.target, f"cap{n}")
                rows += [line(result), detail(result)]
                if any(result.verdict) or result.failures:
                    stopped = f"{games} games lost, duplicated an event or a player failed"
                    break
                if result.p99 > BOUND_MS and not over:
                    over = f"{games} games: p99 {result.p99:.0f} ms > {BOUND_MS:.0f} ms"
                    stopped = over
                if result.p99 > ENOUGH_MS:
                    stopped = f"{over}; {games} games: p99 over {ENOUGH_MS:.0f} ms, none larger"
                    break
                if not over:
                    capacity, at_capacity = games, result
    print(
        f"Human-pace capacity: players think {PACE[0]:.0f}-{PACE[1]:.0f} s per move; mix {MIX};"
        f" players arrive over max({MIN_RAMP:.0f} s, games / {RAMP_RATE:.0f}) s, then"
        f" {WINDOW} s measured{' (quick run)' if QUICK else ''}; bound p99 <= {BOUND_MS:.0f} ms"
    )
    print(
        "latency: every game command made in the window, from the call to its reply;"
        " ramp p99: the calls made while players arrived (not counted);"
        " lag p99: the load processes' event-loop lag; echo p99: a bare gRPC echo pinged"
        " meanwhile; cpu: cores used by the server, the load, PostgreSQL and NATS, the rest;"
        " ms/call: server CPU per game command (all its work: matchmaking, watchers, relays);"
        " games/core: the step's games per core the server used (its processes only)"
    )
    print(HEADER)
    print(*rows, sep="\n")
    print(f"capacity: {capacity} concurrent games ({stopped})")
    if at_capacity is not None:
        m = at_capacity.machine
        print(
            f"per server core: {per_core(at_capacity):.0f} concurrent games (the server used"
            f" {m.server:.2f} cores at that step; the load {m.load:.2f}, PostgreSQL and NATS"
            f" {m.backends:.2f})"
        )
    print("baseline, same run: no thinking time (players as fast as they can)")
    print(HEADER)
    print(line(base))
    print(detail(base))
    lost = any(base.verdict) or bool(base.failures) or "lost" in stopped
    return 1 if lost else 0  # a latency over the bound ends the search; a lost event fails


if __name__ == "__main__":
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as found:
            sys.exit(asyncio.run(main(found)))
