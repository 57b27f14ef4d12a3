"""Server CPU per game command at human pace, by kind of work, beside a bare echo's.

The load is open-loop: players of all three games (half Connect 4x4, a quarter each Upwords
and Take Four, matched through matchmaking, each keeping its ``WatchGame`` stream open as
the clients do) wait for a turn handed out at a fixed rate of commands (``RATE`` a second,
``load_players.Gate``), whatever the server's replies take; with many more games than
commands due, that is a human's pace (a game moves every few seconds). Their bots think in
load processes of their own, outside the server. The server is ``parlor-platform`` as
``make run`` runs it (one worker per core) in its own processes; its CPU (user + system of
the platform and its workers, from /proc) over each measured window, divided by the game
commands made in it, is the figure. ``WINDOWS`` windows of ``WINDOW`` s each, after the
players have arrived, so that the noise of a shared machine shows window by window.

Beside it, in the same run: a bare ``grpc.aio`` echo server (its own process) called at
the same rate meanwhile, its CPU per call; after the load, the Connect 4x4 move's CPU in
a tight loop (one caller, as fast as it can, the server's idle CPU taken off) on the same
platform. Then one more window is recorded with py-spy (``--subprocesses``): the server's
samples sorted into kinds of work by the frames they are under (``KINDS``: the command,
the pictures to watchers, relays and bells, clocks, matchmaking, directory; what none
claims is the event loop and gRPC), each kind's share of the samples times the CPU per
command of the unprofiled windows. The profile is kept in ``bench/reports``
(``profile-pace-<side>.txt``, collapsed stacks).

``--against=REF`` runs a second platform from the source of git commit ``REF`` (say
``main``, or the commit before a change), extracted into a temporary directory and put
first on its ``PYTHONPATH`` (the venv, its generated protobuf code and entry points are
this checkout's), side by side with this checkout's at once: the same load at the same
rate on each, on a scratch database and stream of each's own, both measured in every
window, so that a busy moment of a shared machine falls on both.

Every event a reply acknowledged is then checked to be in the store and on NATS once.

    python bench/pace_bench.py [--quick] [--against=REF] [--games=N] [--rate=R] [--pool=N]
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import math
import multiprocessing
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).parent))

import cpu_bench
from benchkit import ECHO, QUICK, REPORTS, ServerProcess, pct, profile, tree_cpu_seconds
from capacity_bench import arrivals, settled
from cpu_bench import Calls, connect4x4_lane
from load_bench import AUTH, Platform, check
from load_players import GAME_TYPES, Tally, play_share, ready, start_thinker

from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import migrate


def _option(name: str, default: str) -> str:
    found = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith(f"--{name}=")]
    return found[-1] if found else default


GAMES = int(_option("games", "60" if QUICK else "150"))
RATE = float(_option("rate", "15" if QUICK else "25"))
"""Game commands a second, over all the games of one platform."""
AGAINST = _option("against", "") or None
WINDOWS = 2 if QUICK else 4
WINDOW = 8.0 if QUICK else 15.0
PROFILED = 8.0 if QUICK else 15.0
TIGHT = 3.0 if QUICK else 6.0
MIN_RAMP = 6.0 if QUICK else 12.0
RAMP_RATE = 20.0  # games arriving a second
POOL = _option("pool", "16")
"""Each worker's PostgreSQL connections (``PARLOR_DATABASE_POOL_SIZE``)."""
GAMES_PER_LOAD = 250

KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # (kind, markers): a sample is the first kind one of whose markers is in one of its
    # frames, looked for from the outermost frame in: the work that set the rest off
    ("matchmaking", ("matchmaking/", "matching/")),
    (
        "directory",
        ("directory/projection.py", "gamehost/wire/listing.py", "admission/opengames.py"),
    ),
    (
        "clocks",
        (
            "gamehost/table/clocks.py",
            "gamehost/drivers/deadlines.py",
            "gamehost/drivers/sweeper.py",
            "timecheck.py",
        ),
    ),
    (
        "relays and bells",
        (
            "eventstore/relay.py",
            "eventstore/doorbell.py",
            "eventstore/consumers.py",
            "eventstore/bus.py",
            "eventstore/jetstream.py",
            "runtime/bells.py",
            "runtime/outbox.py",
        ),
    ),
    ("pictures to watchers", ("WatchGame", "gamehost/host/observe.py", "GameHost._after")),
    (
        "the command",
        ("gamehost/record/command.py", "gamehost/pipeline/pipeline.py", "gamehost/wire/service.py"),
    ),
)
OTHER = "event loop, gRPC, the rest"
IDLE = "waiting (not CPU)"
WAITS = ("EpollSelector.select", "_watch_parent")
"""Innermost frames of a thread waiting, not working: py-spy ``--nonblocking`` cannot always
tell (the event loop's epoll, a worker's thread watching its parent in ``time.sleep``);
their samples are counted apart and left out of the shares of CPU."""


@dataclass
class Side:
    """One platform of the run: this checkout's, or ``--against``'s."""

    name: str
    settings: dict[str, str]
    pythonpath: str = ""
    platform: Platform | None = None
    cpu: list[float] = field(default_factory=list)
    """Server CPU seconds at each window's edges."""
    tallies: dict[str, Tally] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    verdict: tuple[int, int, int] = (0, 0, 0)
    tight: list[float] = field(default_factory=list)
    """The move's CPU in a tight loop, ms a call, each time measured."""
    kinds: dict[str, int] = field(default_factory=dict)
    """py-spy samples by kind of work."""

    @property
    def pid(self) -> int:
        """The platform's process (its workers are under it)."""
        assert self.platform is not None
        assert self.platform.process is not None
        return self.platform.process.pid

    def commands(self, start: float, end: float) -> int:
        return sum(1 for t in self.tallies.values() for at in t.at if start <= at < end)


@contextlib.contextmanager
def source_of(ref: str) -> Iterator[str]:
    """Commit ``ref``'s libraries and services, extracted: the PYTHONPATH that runs them."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="pace-against-") as into:
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", ref, "libs", "services"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
        # the generated protobuf code is not tracked: this checkout's (from the venv's path)
        shutil.rmtree(Path(into) / "libs" / "protos", ignore_errors=True)
        paths = sorted(str(p) for p in Path(into).glob("*/*/src"))
        yield os.pathsep.join(paths)


class SidePlatform(Platform):
    """``Platform`` with a log of its own and, for ``--against``, another source first."""

    def __init__(self, side: Side) -> None:
        s = side.settings
        super().__init__(
            s["PARLOR_DATABASE_URL"],
            s["PARLOR_NATS_URL"],
            s["PARLOR_NATS_SUBJECT_PREFIX"],
            s["PARLOR_NATS_STREAM"],
        )
        self.env["PARLOR_WEB_PORT"] = "0"  # two platforms at once: a free port each
        # a shared PostgreSQL (max_connections 100): two platforms of two workers at the
        # default 40 a worker ran out of connections ("too many clients"); human pace
        # needs few
        self.env["PARLOR_DATABASE_POOL_SIZE"] = POOL
        if side.pythonpath:
            self.env["PYTHONPATH"] = side.pythonpath
        self.log_name = Path(tempfile.gettempdir()) / f"parlor-pace-{side.name}-{self.port}.log"

    def start(self) -> None:
        self.log = open(self.log_name, "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [c for c in self.command if c], env=self.env, stdout=self.log, stderr=self.log
        )


async def echo_calls(target: str, rate: float, until: float) -> int:
    """Calls to the bare echo at ``rate`` a second until ``until``; how many were made."""
    import grpc

    made = 0
    async with grpc.aio.insecure_channel(target) as ch:
        call = ch.unary_unary(ECHO)
        due = time.monotonic()
        while due < until:
            await call(b"x" * 64)
            made += 1
            due += 1.0 / rate
            await asyncio.sleep(max(0.0, due - time.monotonic()))
    return made


async def sample_windows(
    sides: list[Side], echo: ServerProcess, edges: list[float]
) -> tuple[list[float], list[int]]:
    """Every server's CPU at each edge (into the sides), the echo's too, and its calls."""
    echo_cpu: list[float] = []
    echo_made: list[int] = []
    for n, edge in enumerate(edges):
        await asyncio.sleep(max(0.0, edge - time.monotonic()))
        for side in sides:
            side.cpu.append(tree_cpu_seconds(side.pid))
        echo_cpu.append(echo.cpu_seconds())
        if n + 1 < len(edges):
            echo_made.append(await echo_calls(echo.target, RATE, edges[n + 1]))
    return echo_cpu, echo_made


async def recorded(sides: list[Side], start: float, until: float) -> None:
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    profilers = []
    for side in sides:
        profilers.append(profile(side.pid, f"pace-{side.name}"))
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    for profiler in profilers:
        profiler.send_signal(signal.SIGINT)
    for profiler in profilers:
        await asyncio.to_thread(profiler.wait, 60)


async def checked(tallies: dict[str, Tally], *settings: str) -> tuple[int, int, int]:
    """``load_bench.check``; (-1, -1, -1) if the store could not be read (said on stderr)."""
    try:
        return await check(tallies, *settings)
    except Exception as exc:  # a shared PostgreSQL out of connections: the figures stand
        print(f"the check of acknowledged events failed: {exc!r}", file=sys.stderr)
        return (-1, -1, -1)


def kinds_of(path: Path) -> dict[str, int]:
    """The samples of a py-spy raw profile by kind of work (``KINDS``)."""
    found = dict.fromkeys([*(k for k, _ in KINDS), OTHER], 0)
    if not path.exists():
        return found
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = stack.split(";")
        kind = OTHER
        if frames[-1].startswith(WAITS):
            found[IDLE] = found.get(IDLE, 0) + int(count)
            continue
        for frame in frames:  # outermost first
            kind = next((k for k, marks in KINDS if any(m in frame for m in marks)), OTHER)
            if kind != OTHER:
                break
        found[kind] += int(count)
    return found


async def tight_loop(side: Side) -> None:
    """The Connect 4x4 move's server CPU in a tight loop, ms a call, less the idle CPU."""
    assert side.platform is not None
    pid = side.pid
    cpu_bench.AUTH = AUTH  # its lanes sign with the key of the platform they call: this one
    lane = await connect4x4_lane(side.platform.target, 15)  # a player has 20 at most
    idle_from = tree_cpu_seconds(pid)
    await asyncio.sleep(2.0)
    idle = (tree_cpu_seconds(pid) - idle_from) / 2.0
    calls = Calls()
    before, began = tree_cpu_seconds(pid), time.monotonic()
    await lane(calls, time.monotonic() + TIGHT)
    seconds = time.monotonic() - began
    spent = tree_cpu_seconds(pid) - before - idle * seconds
    side.tight.append(1000 * spent / max(1, len(calls.latencies)))


async def run(sides: list[Side]) -> tuple[list[float], list[float], list[int]]:
    spawn = multiprocessing.get_context("spawn")
    loads = max(1, math.ceil(GAMES / GAMES_PER_LOAD))
    loop = asyncio.get_running_loop()
    with concurrent.futures.ProcessPoolExecutor(
        loads * len(sides), mp_context=spawn, initializer=start_thinker
    ) as pool:
        await asyncio.gather(
            *(loop.run_in_executor(pool, ready, 2.0) for _ in range(loads * len(sides)))
        )
        async with ServerProcess.echo() as echo, contextlib.AsyncExitStack() as stack:
            for side in sides:
                side.platform = await stack.enter_async_context(SidePlatform(side))
            for side in sides:
                await settled(side.pid)
            start = time.monotonic() + 1.0
            ramp = max(MIN_RAMP, GAMES / RAMP_RATE)
            edges = [start + ramp + i * WINDOW for i in range(WINDOWS + 1)]
            deadline = edges[-1] + PROFILED
            plays = []
            for side in sides:
                assert side.platform is not None
                everyone = arrivals(GAMES, ramp, f"pace-{side.name}", start)
                shares = [everyone[i::loads] for i in range(loads)]
                plays += [
                    loop.run_in_executor(
                        pool,
                        play_share,
                        side.platform.target,
                        share,
                        None,
                        edges[0],
                        deadline,
                        RATE / loads,
                    )
                    for share in shares
                ]
            sampling = asyncio.create_task(sample_windows(sides, echo, edges))
            profiling = asyncio.create_task(recorded(sides, edges[-1], deadline))
            parts = await asyncio.gather(*plays)
            echo_cpu, echo_made = await sampling
            await profiling
            for i, side in enumerate(sides):
                for tallies, failures, _ in parts[i * loads : (i + 1) * loads]:
                    for name, tally in tallies.items():
                        side.tallies.setdefault(name, Tally()).merge(tally)
                    for key, n in failures.items():
                        side.failures[key] = side.failures.get(key, 0) + n
            await asyncio.sleep(3)  # the relays publish the last events
            for _ in range(2):  # in turn, twice: a busy moment falls on both
                for side in sides:
                    try:
                        await tight_loop(side)
                    except grpc.aio.AioRpcError as exc:  # a shared PostgreSQL too busy
                        print(f"{side.name}: a tight loop failed: {exc.details()}", file=sys.stderr)
                        side.tight.append(float("nan"))
            for side in sides:
                s = side.settings
                side.verdict = await checked(
                    side.tallies,
                    s["PARLOR_DATABASE_URL"],
                    s["PARLOR_NATS_URL"],
                    s["PARLOR_NATS_SUBJECT_PREFIX"],
                    s["PARLOR_NATS_STREAM"],
                )
                side.kinds = kinds_of(REPORTS / f"profile-pace-{side.name}.txt")
    return edges, echo_cpu, echo_made


def report(sides: list[Side], edges: list[float], echo_cpu: list[float], made: list[int]) -> None:
    print(
        f"Server CPU per game command at human pace: open-loop, {RATE:.0f} commands/s over"
        f" {GAMES} games a platform (all three kinds, through matchmaking, every player"
        f" watching its game); {WINDOWS} windows of {WINDOW:.0f} s{' (quick)' if QUICK else ''}"
    )
    echo_ms = [1000 * (echo_cpu[i + 1] - echo_cpu[i]) / max(1, made[i]) for i in range(len(made))]
    head = f"{'window':>7}{'echo ms/call':>13}" + "".join(
        f"{side.name + ' cmds':>14}{'ms/cmd':>8}{'x echo':>8}" for side in sides
    )
    print(head)
    per: dict[str, list[float]] = {side.name: [] for side in sides}
    for i in range(WINDOWS):
        row = f"{i + 1:>7}{echo_ms[i]:>13.2f}"
        for side in sides:
            n = side.commands(edges[i], edges[i + 1])
            ms = 1000 * (side.cpu[i + 1] - side.cpu[i]) / max(1, n)
            per[side.name].append(ms)
            row += f"{n:>14}{ms:>8.2f}{ms / echo_ms[i]:>8.1f}"
        print(row)
    echo_med = statistics.median(echo_ms)
    for side in sides:
        xs = per[side.name]
        every = [x for t in side.tallies.values() for x in t.latencies]
        print(
            f"{side.name}: server CPU {statistics.median(xs):.2f} ms a command (median of"
            f" {len(xs)} windows, {min(xs):.2f}-{max(xs):.2f}),"
            f" {statistics.median(xs) / echo_med:.1f}x"
            f" the echo's {echo_med:.2f} ms; p50 {statistics.median(every or [0]):.1f} ms,"
            f" p99 {pct(every, 0.99):.1f} ms; the move in a tight loop:"
            f" {', '.join(f'{t:.2f}' for t in side.tight)} ms a call"
        )
        waits = side.kinds.pop(IDLE, 0)
        total = sum(side.kinds.values())
        if total:
            shares = ", ".join(
                f"{kind} {100 * n / total:.0f}% ({statistics.median(xs) * n / total:.2f} ms)"
                for kind, n in sorted(side.kinds.items(), key=lambda kv: -kv[1])
            )
            print(
                f"  by kind of work ({total} py-spy samples, one more window; {waits} more"
                f" waiting, left out): {shares}"
            )
        calls = {game: len(t.latencies) for game in GAME_TYPES if (t := side.tallies.get(game))}
        print(
            f"  commands by game: {calls}; refused: "
            f"{ {g: t.refused for g, t in side.tallies.items() if t.refused} }"
        )
        lost, not_on_nats, twice = side.verdict
        print(
            f"  acknowledged events lost {lost}, missing from NATS {not_on_nats},"
            f" published twice {twice}"
        )
        if side.failures:
            print(f"  failures: {side.failures}")
    if len(sides) == 2:
        ratios = [a / b for a, b in zip(per[sides[0].name], per[sides[1].name], strict=True)]
        print(
            f"{sides[0].name} / {sides[1].name}, window by window: "
            + ", ".join(f"{r:.2f}" for r in ratios)
        )


async def sides_of(stack: contextlib.ExitStack, against: str | None) -> list[Side]:
    """This checkout's side and, with ``against``, that commit's: each on a scratch database
    and stream of its own (migrated), kept until ``stack`` closes."""
    backends = stack.enter_context(find_backends())
    sides = [
        Side(
            "this",
            stack.enter_context(
                scratch_settings(backends.database_url, backends.nats_url, "bench")
            ),
        )
    ]
    if against:
        sides.append(
            Side(
                against.replace("/", "-")[:20],
                stack.enter_context(
                    scratch_settings(backends.database_url, backends.nats_url, "bench")
                ),
                stack.enter_context(source_of(against)),
            )
        )
    for side in sides:
        await migrate(side.settings["PARLOR_DATABASE_URL"])
    return sides


async def main() -> int:
    with contextlib.ExitStack() as stack:
        sides = await sides_of(stack, AGAINST)
        edges, echo_cpu, made = await run(sides)
        report(sides, edges, echo_cpu, made)
        bad = any(any(side.verdict) for side in sides)
        return 1 if bad else 0
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
