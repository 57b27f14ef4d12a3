"""Load: concurrent games of all three kinds through matchmaking, to the end, for a bounded time.

The platform runs as ``make run`` runs it (``parlor-platform``, every service on
one port) in its own process, on PostgreSQL and NATS found as the tests find
them, in a scratch database and a NATS stream of its own. This process is the
players: two per game, each a gRPC client that asks matchmaking for a game,
follows its ticket to its game and seat, plays it to the end (see
``load_players.py``: each player sees only its own seat's view) and asks for
another until the time is up. Reports calls/s and latency p50/p99 per game
type, then checks that every event a reply acknowledged is in the store and on
NATS, each once. A latency histogram is written beside the report
(``load_bench.png``).

    python bench/load_bench.py [--games 200] [--seconds 60]
                               [--mix connect4x4=2,upwords=1,takefour=1]

Baselines measured in the same run, at the same concurrency: a raw gRPC echo
(a bare grpc.aio server, no interceptors), a raw psycopg insert-and-commit of
one row, and Connect 4x4 games played through the game host alone (store and
rules, no gRPC, no matchmaking). ``eventsourcing`` is the baseline of
``eventstore_bench.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import multiprocessing
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import grpc
import nats
import psycopg
from grpc_health.v1 import health_pb2, health_pb2_grpc

sys.path.insert(0, str(Path(__file__).parent))

from benchkit import QUICK, free_port, pct
from load_players import GAME_TYPES, PLAYERS, Tally, warm_up

from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import PostgresEventStore, migrate
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import Codec, rules

SECRET = generate_private_key()  # the identity key this run signs with
AUTH = AuthSettings(private_key=SECRET)


def parse_mix(text: str, games: int) -> dict[str, int]:
    """``connect4x4=2,upwords=1`` shares ``games`` out in those proportions."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        if name.strip() not in GAME_TYPES:
            raise SystemExit(f"--mix: unknown game type {name!r}; known: {', '.join(GAME_TYPES)}")
        weights[name.strip()] = float(weight or 1)
    total = sum(weights.values())
    counts = {name: int(games * w / total) for name, w in weights.items()}
    first = next(iter(counts))
    counts[first] += games - sum(counts.values())
    return counts


# -- the platform, as make run runs it ----------------------------------------------------------


class Platform:
    def __init__(self, database_url: str, nats_url: str, prefix: str, stream: str) -> None:
        self.port = free_port()
        self.target = f"127.0.0.1:{self.port}"
        program = Path(sys.executable).parent / "parlor-platform"
        self.command = [str(program) if program.exists() else shutil.which("parlor-platform")]
        self.env = {
            **os.environ,
            "PARLOR_DATABASE_URL": database_url,
            "PARLOR_NATS_URL": nats_url,
            "PARLOR_NATS_SUBJECT_PREFIX": prefix,
            "PARLOR_NATS_STREAM": stream,
            "PARLOR_GRPC_HOST": "127.0.0.1",
            "PARLOR_GRPC_PORT": str(self.port),
            "PARLOR_METRICS_PORT": "0",
            "PARLOR_DICTIONARY_TARGET": self.target,
            "PARLOR_JWT_PRIVATE_KEY": SECRET,
            "PARLOR_RATE_LIMIT_PER_SECOND": "0",
            # every player of the load comes from 127.0.0.1: no cap on one address's streams
            "PARLOR_MAX_STREAMS_PER_ADDRESS": "0",
            "PARLOR_MATCHMAKING_ROUND_SECONDS": "0.2",
            "PARLOR_LOG_LEVEL": "WARNING",
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.log = open(Path(os.environ.get("TMPDIR", "/tmp")) / "parlor-load-platform.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [c for c in self.command if c], env=self.env, stdout=self.log, stderr=self.log
        )

    def ready(self) -> bool:
        """Every worker serves: the platform says so once all of them do."""
        text = Path(self.log.name).read_text(errors="replace")
        return any(line.startswith("parlor: serving") for line in text.splitlines())

    async def __aenter__(self) -> Platform:
        await asyncio.to_thread(self.start)
        assert self.process is not None
        deadline = time.monotonic() + 120
        async with grpc.aio.insecure_channel(self.target) as ch:
            health = health_pb2_grpc.HealthStub(ch)
            while True:
                if self.process.poll() is not None:
                    tail = Path(self.log.name).read_text(errors="replace")[-3000:]  # noqa: ASYNC240
                    raise RuntimeError(
                        f"parlor-platform exited with code {self.process.returncode}"
                        f" ({self.log.name}):\n{tail}"
                    )
                try:
                    reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING and self.ready():
                        return self
                except grpc.aio.AioRpcError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError("parlor-platform did not become SERVING in 120 s")
                await asyncio.sleep(0.2)

    async def __aexit__(self, *exc: object) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(self.process.wait, 30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


# -- the run ------------------------------------------------------------------------------------


async def play(
    target: str,
    counts: dict[str, int],
    seconds: float,
    drain: float,
    pool: concurrent.futures.Executor,
    pace: tuple[float, float] | None = None,
    prefix: str = "load",
) -> tuple[dict[str, Tally], float, dict[str, int], int]:
    """Players start games until ``seconds`` are up, then finish the games they are in
    (for at most ``drain`` more seconds); calls/s and latency are of the first part.
    With a ``pace`` each player thinks that many seconds (uniform) before each move."""
    deadline = time.monotonic() + seconds
    tallies = {name: Tally(deadline=deadline) for name in counts}
    tasks: dict[asyncio.Task[None], str] = {}
    rng = random.Random(7)
    for name, games in counts.items():
        for i in range(2 * games):
            player_id = f"{prefix}-{name}-{i}"
            player = PLAYERS[name](
                target,
                issue_token(AUTH, player_id, player_id),
                tallies[name],
                pool,
                deadline,
                rng.randrange(2**32),
            )
            player.pace = pace
            tasks[asyncio.create_task(player.run())] = name
    done, pending = await asyncio.wait(tasks, timeout=seconds + drain)
    for task in pending:  # games still in flight after the drain stop here
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    failures: dict[str, int] = {}
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            key = f"{tasks[task]}: {type(task.exception()).__name__}: {task.exception()}"[:160]
            failures[key] = failures.get(key, 0) + 1
    return tallies, seconds, failures, len(pending)


async def check(
    tallies: dict[str, Tally], database_url: str, nats_url: str, prefix: str, stream: str
) -> tuple[int, int, int]:
    """Acknowledged events missing from the store, missing from NATS; events published twice."""
    acked = set().union(*(t.acked for t in tallies.values()))
    streams: dict[str, set[int]] = {}
    for stream_id, version in acked:
        streams.setdefault(stream_id, set()).add(version)
    missing_store = 0
    async with PostgresEventStore(database_url) as store:
        for stream_id, versions in streams.items():
            stored = {e.version for e in await store.read_stream(stream_id)}
            missing_store += len(versions - stored)
    published: dict[tuple[str, int], int] = {}
    nc = await nats.connect(nats_url)
    try:
        sub = await nc.jetstream().subscribe(f"{prefix}.>", stream=stream, ordered_consumer=True)
        while True:
            try:
                msg = await sub.next_msg(timeout=3)
            except nats.errors.TimeoutError:
                break
            key = (msg.headers["Parlor-Stream"], int(msg.headers["Parlor-Version"]))
            published[key] = published.get(key, 0) + 1
    finally:
        await nc.close()
    missing_bus = sum(1 for key in acked if key not in published)
    twice = sum(1 for n in published.values() if n > 1)
    return missing_store, missing_bus, twice


# -- baselines, same concurrency ------------------------------------------------------------------


async def echo_baseline(concurrency: int, seconds: float) -> tuple[float, float, float]:
    """A bare grpc.aio unary echo on loopback: calls/s, p50, p99 (ms)."""

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
            call = ch.unary_unary("/bench.Echo/Echo")

            async def caller() -> None:
                while time.monotonic() < deadline:
                    started = time.perf_counter()
                    await call(b"x" * 64)
                    latencies.append((time.perf_counter() - started) * 1000)

            started = time.perf_counter()
            await asyncio.gather(*(caller() for _ in range(concurrency)))
            elapsed = time.perf_counter() - started
    finally:
        await server.stop(None)
    return len(latencies) / elapsed, statistics.median(latencies), pct(latencies, 0.99)


async def insert_baseline(url: str, concurrency: int, seconds: float) -> tuple[float, float, float]:
    """One-row INSERT + COMMIT per call with psycopg, ``concurrency`` connections at most 20."""
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as conn:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS load_baseline (id bigserial PRIMARY KEY, data bytea)"
        )
    latencies: list[float] = []
    deadline = time.monotonic() + seconds

    async def writer() -> None:
        async with await psycopg.AsyncConnection.connect(conninfo) as conn:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                await conn.execute("INSERT INTO load_baseline (data) VALUES (%s)", (b"x" * 64,))
                await conn.commit()
                latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(min(concurrency, 20))))
    elapsed = time.perf_counter() - started
    return len(latencies) / elapsed, statistics.median(latencies), pct(latencies, 0.99)


async def host_baseline(url: str, games: int, seconds: float) -> float:
    """Connect 4x4 moves/s through the game host alone (store + rules), ``games`` at once."""
    deadline = time.monotonic() + seconds
    async with PostgresEventStore(url) as store:
        host = GameHost("loadbase", rules(), Codec(), store)
        moves = 0

        async def game(rng: random.Random) -> None:
            nonlocal moves
            while time.monotonic() < deadline:
                game_id = uuid.uuid4().hex
                outcome = await host.create(
                    game_id, OpenTable((Seat("a"), Seat("b")), c4.CreateGame(c4.Config()))
                )
                n = 0
                while not c4.is_terminal(outcome.state.game) and time.monotonic() < deadline:
                    move = rng.choice(c4.legal_moves(outcome.state.game))
                    outcome = await host.execute(game_id, move, command_id=f"m{n}")
                    n += 1
                    moves += 1

        started = time.perf_counter()
        await asyncio.gather(*(game(random.Random(i)) for i in range(games)))
        return moves / (time.perf_counter() - started)


def plot(tallies: dict[str, Tally]) -> None:
    out = Path(os.environ.get("PARLOR_BENCH_REPORT_DIR", Path(__file__).parent / "reports"))
    out.mkdir(exist_ok=True)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(7, 3.5))
    top = max((pct(t.latencies, 0.995) for t in tallies.values() if t.latencies), default=1.0)
    for name, tally in tallies.items():
        if tally.latencies:
            ax.hist(
                [min(x, top) for x in tally.latencies],
                bins=60,
                alpha=0.6,
                label=name,
                range=(0, top),
            )
    ax.set_xlabel("call latency (ms), every game command")
    ax.set_ylabel("calls")
    ax.set_title("Game commands under load, through matchmaking")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "load_bench.png", dpi=100)


async def main(args: argparse.Namespace, settings: dict[str, str]) -> int:
    """``settings``: the run's scratch database and stream (``scratch_settings``)."""
    database_url, nats_url = settings["PARLOR_DATABASE_URL"], settings["PARLOR_NATS_URL"]
    prefix, stream = settings["PARLOR_NATS_SUBJECT_PREFIX"], settings["PARLOR_NATS_STREAM"]
    counts = parse_mix(args.mix, args.games)
    await migrate(database_url)
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        await asyncio.get_running_loop().run_in_executor(pool, warm_up)
        async with Platform(database_url, nats_url, prefix, stream) as platform:
            tallies, elapsed, failures, cut = await play(
                platform.target, counts, args.seconds, args.drain, pool
            )
            await asyncio.sleep(3)  # the relays publish the last events
            verdict = await check(tallies, database_url, nats_url, prefix, stream)
    players = 2 * sum(counts.values())
    echo = await echo_baseline(players, 5)
    insert = await insert_baseline(database_url, players, 5)
    host_rate = await host_baseline(database_url, counts.get("connect4x4", args.games), 5)
    plot(tallies)

    everything = [x for t in tallies.values() for x in t.latencies]
    print(
        f"{sum(counts.values())} concurrent games ({players} players) through matchmaking"
        f" for {args.seconds} s, then up to {args.drain} s for the games in flight to end: "
        + ", ".join(f"{n} {name}" for name, n in counts.items())
    )
    print(f"calls/s and latency are of the first {args.seconds} s, all games running")
    print(
        f"{'game type':<12}{'games':>7}{'ended':>7}{'calls':>8}{'calls/s':>9}"
        f"{'p50 ms':>9}{'p99 ms':>9}  refused (played from a stale view)"
    )
    for name, t in tallies.items():
        print(
            f"{name:<12}{len(t.games_started):>7}{len(t.games_finished):>7}{len(t.latencies):>8}"
            f"{len(t.latencies) / elapsed:>9.0f}{statistics.median(t.latencies or [0]):>9.1f}"
            f"{pct(t.latencies, 0.99):>9.1f}  {t.refused or '-'}"
        )
    print(
        f"{'all':<12}{sum(len(t.games_started) for t in tallies.values()):>7}"
        f"{sum(len(t.games_finished) for t in tallies.values()):>7}{len(everything):>8}"
        f"{len(everything) / elapsed:>9.0f}{statistics.median(everything or [0]):>9.1f}"
        f"{pct(everything, 0.99):>9.1f}"
    )
    print(f"baselines, same run, {players} callers:")
    print(
        f"  raw gRPC echo (bare grpc.aio)  {echo[0]:>8.0f} calls/s"
        f"  p50 {echo[1]:.1f}  p99 {echo[2]:.1f} ms"
    )
    print(
        f"  raw psycopg insert+commit ({min(players, 20)} conns) {insert[0]:>6.0f} rows/s"
        f"   p50 {insert[1]:.1f}  p99 {insert[2]:.1f} ms"
    )
    print(f"  Connect 4x4 via GameHost, no gRPC  {host_rate:>6.0f} moves/s")
    for name, t in tallies.items():
        for code, example in t.examples.items():
            print(f"  e.g. {name} {code}: {example}")
    print(
        f"calls while the last games ended: {sum(t.after_deadline for t in tallies.values())};"
        f" players still in a game when the drain ran out: {cut}"
    )
    print(f"players that failed: {failures or 'none'}")
    missing_store, missing_bus, twice = verdict
    acked = set().union(*(t.acked for t in tallies.values()))
    print(f"events acknowledged to players: {len(acked)}")
    print(f"  missing from the store: {missing_store}")
    print(f"  missing from NATS: {missing_bus}")
    print(f"  published more than once: {twice}")
    return 1 if missing_store or missing_bus or twice or failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--games", type=int, default=int(os.environ.get("PARLOR_LOAD_GAMES", 40 if QUICK else 200))
    )
    parser.add_argument(
        "--seconds",
        type=int,
        default=int(os.environ.get("PARLOR_LOAD_SECONDS", 15 if QUICK else 60)),
    )
    parser.add_argument(
        "--drain",
        type=int,
        default=int(os.environ.get("PARLOR_LOAD_DRAIN_SECONDS", 60 if QUICK else 240)),
        help="seconds the games in flight at the end may take to finish",
    )
    parser.add_argument(
        "--mix",
        default=os.environ.get("PARLOR_LOAD_MIX", "connect4x4=2,upwords=1,takefour=1"),
        help="game types and their shares of --games",
    )
    parser.add_argument(
        "--quick", action="store_true", help="smaller defaults: 40 games, 15 s, 60 s of drain"
    )
    arguments = parser.parse_args()
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as settings:
            code = asyncio.run(main(arguments, settings))  # both are removed afterwards
    sys.exit(code)
