"""Load: many concurrent Connect 4x4 games through matchmaking, to the end, for a bounded time.

Every player asks matchmaking for a game, follows its ticket (WatchTicket) to
its game and seat, and plays random legal moves. Reports moves/s and move
latency p50/p99, then checks that every acknowledged move is in the store
(its command id recorded, its version there) and on NATS (each event once).
A latency histogram is written beside the report (bench/reports/load_bench.png).

    python bench/load_bench.py [--games 200] [--seconds 60]

Runs the platform in-process on PostgreSQL and NATS found as the tests find
them, in a scratch database and a NATS stream of its own. Baseline in the same
run: the same number of games played through the game host without gRPC or
matchmaking (store + rules only).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
import uuid
from pathlib import Path

import grpc
import nats

from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.devinfra.backends import find_backends, scratch_database
from parlor.eventstore import PostgresEventStore, migrate
from parlor.gamehost import GameHost
from parlor.gamehost.seating import OpenTable, Seat
from parlor.kit import client
from parlor.kit.auth import AuthSettings, issue_token
from parlor.kit.main import available
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import ServerSettings, running
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.codec import Codec
from parlor.services.connect4x4.component import rules

AUTH = AuthSettings(secret="load-secret-load-secret-load-secret-load")


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Load:
    def __init__(self, target: str, deadline: float) -> None:
        self.target = target
        self.deadline = deadline
        self.latencies: list[float] = []
        self.acked: dict[str, set[int]] = {}  # game id -> versions acknowledged to a player
        self.games_finished = 0
        self.errors: dict[str, int] = {}

    async def player(self, player_id: str, rng: random.Random) -> None:
        token = issue_token(AUTH, player_id, player_id)
        async with client.channel(self.target, token) as ch:
            matchmaking = mm_grpc.MatchmakingServiceStub(ch)
            games = pb_grpc.Connect4x4ServiceStub(ch)
            while time.monotonic() < self.deadline:
                ticket = (
                    await matchmaking.CreateTicket(
                        mm.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=2)
                    )
                ).ticket
                async for update in matchmaking.WatchTicket(
                    mm.WatchTicketRequest(ticket_id=ticket.ticket_id)
                ):
                    if update.ticket.match_id:
                        ticket = update.ticket
                        break
                await self.play_when_created(games, ticket.match_id, ticket.seat, rng)

    async def play_when_created(
        self, games: pb_grpc.Connect4x4ServiceStub, game_id: str, seat: int, rng: random.Random
    ) -> None:
        """The game appears once its service has consumed MatchFormed: wait for it."""
        for _ in range(200):
            try:
                await self.play(games, game_id, seat, rng)
                return
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.NOT_FOUND:
                    raise
                await asyncio.sleep(0.05)

    async def play(
        self, games: pb_grpc.Connect4x4ServiceStub, game_id: str, seat: int, rng: random.Random
    ) -> None:
        game = None
        async for update in games.WatchGame(pb.WatchGameRequest(game_id=game_id)):
            game = update.game
            if game.status in (pb.STATUS_WON, pb.STATUS_TIED):
                break
            if game.status != pb.STATUS_IN_PROGRESS or game.turn != seat:
                continue
            if not game.legal_moves:
                continue
            move = rng.choice(list(game.legal_moves))
            command_id = f"{game_id}-{game.version}"
            started = time.perf_counter()
            try:
                reply = await games.PlayMove(
                    pb.PlayMoveRequest(game_id=game_id, move=move, command_id=command_id)
                )
            except grpc.aio.AioRpcError as exc:
                # a move made from a view the stream has not caught up on: refused, by its rule
                key = f"{exc.code().name}"
                self.errors[key] = self.errors.get(key, 0) + 1
                continue
            self.latencies.append((time.perf_counter() - started) * 1000)
            self.acked.setdefault(game_id, set()).update(e.info.version for e in reply.events)
        if game is not None and game.status in (pb.STATUS_WON, pb.STATUS_TIED) and seat == 0:
            self.games_finished += 1


async def host_only(url: str, games: int) -> tuple[float, int]:
    async with PostgresEventStore(url) as store:
        host = GameHost("loadbase", rules(), Codec(), store)

        async def game(rng: random.Random) -> int:
            game_id = uuid.uuid4().hex
            outcome = await host.create(
                game_id, OpenTable((Seat("a"), Seat("b")), c4.CreateGame(c4.Config()))
            )
            moves = 0
            while not c4.is_terminal(outcome.state.game):
                move = rng.choice(c4.legal_moves(outcome.state.game))
                outcome = await host.execute(game_id, move, command_id=f"m{moves}")
                moves += 1
            return moves

        started = time.perf_counter()
        total = sum(await asyncio.gather(*(game(random.Random(i)) for i in range(games))))
        return total / (time.perf_counter() - started), total


async def check(load: Load, database_url: str, nats_url: str, prefix: str, stream: str) -> str:
    store = PostgresEventStore(database_url)
    missing_store = 0
    try:
        for game_id, versions in load.acked.items():
            stored = {e.version for e in await store.read_stream(f"connect4x4-{game_id}")}
            missing_store += len(versions - stored)
    finally:
        await store.close()
    nc = await nats.connect(nats_url)
    seen: dict[str, list[int]] = {}
    try:
        sub = await nc.jetstream().subscribe(
            f"{prefix}.connect4x4.>", stream=stream, ordered_consumer=True
        )
        while True:
            try:
                msg = await sub.next_msg(timeout=3)
            except nats.errors.TimeoutError:
                break
            seen.setdefault(msg.subject.split(".")[-2], []).append(
                int(msg.headers["Parlor-Version"])
            )
    finally:
        await nc.close()
    missing_bus = sum(len(v - set(seen.get(g, []))) for g, v in load.acked.items())
    duplicated = sum(len(v) - len(set(v)) for v in seen.values())
    return (
        f"acknowledged events: {sum(len(v) for v in load.acked.values())} in "
        f"{len(load.acked)} games; missing from the store: {missing_store}; "
        f"missing from NATS: {missing_bus}; published twice: {duplicated}"
    )


def plot(latencies: list[float]) -> None:
    out = Path(os.environ.get("PARLOR_BENCH_REPORT_DIR", Path(__file__).parent / "reports"))
    out.mkdir(exist_ok=True)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.hist(latencies, bins=60)
    ax.set_xlabel("PlayMove latency (ms)")
    ax.set_ylabel("moves")
    ax.set_title("Connect 4x4 moves under load")
    fig.tight_layout()
    fig.savefig(out / "load_bench.png", dpi=100)


async def main(args: argparse.Namespace, database_url: str, nats_url: str) -> None:
    token = uuid.uuid4().hex[:8]
    prefix, stream = f"load{token}.events", f"PARLOR_LOAD_{token}"
    os.environ.update(
        PARLOR_DATABASE_URL=database_url,
        PARLOR_NATS_URL=nats_url,
        PARLOR_NATS_SUBJECT_PREFIX=prefix,
        PARLOR_NATS_STREAM=stream,
        PARLOR_MATCHMAKING_ROUND_SECONDS="0.2",
        PARLOR_MATCHMAKING_GAME_TYPES="connect4x4",
        PARLOR_SCORING_GAME_TYPES="connect4x4",
    )
    await migrate(database_url)
    factories = available()
    names = ["matchmaking", "connect4x4", "scoring"]
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=5)
    no_limit = RateLimitSettings(per_second=0, burst=1)
    async with running(settings, [factories[n] for n in names], AUTH, no_limit) as server:
        load = Load(f"127.0.0.1:{server.port}", time.monotonic() + args.seconds)
        rng = random.Random(7)
        started = time.perf_counter()
        players = [load.player(f"p{i}", random.Random(rng.random())) for i in range(2 * args.games)]
        tasks = [asyncio.create_task(p) for p in players]
        await asyncio.sleep(args.seconds)
        # let games in flight finish their current move, then stop everyone
        await asyncio.sleep(2)
        for task in tasks:
            task.cancel()
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(outcome, Exception) and not isinstance(outcome, asyncio.CancelledError):
                key = f"player: {type(outcome).__name__}"
                load.errors[key] = load.errors.get(key, 0) + 1
        elapsed = time.perf_counter() - started
        await asyncio.sleep(2)  # the relay publishes the last events
        verdict = await check(load, database_url, nats_url, prefix, stream)
    base_rate, _ = await host_only(database_url, args.games)
    plot(load.latencies)
    print(
        f"{args.games} concurrent games ({2 * args.games} players) through matchmaking,"
        f" {args.seconds} s"
    )
    print(f"{'measure':<46}{'value':>14}")
    print(f"{'moves acknowledged':<46}{len(load.latencies):>14}")
    print(f"{'games finished':<46}{load.games_finished:>14}")
    print(f"{'moves/s over gRPC':<46}{len(load.latencies) / elapsed:>14.0f}")
    print(f"{'move latency p50 (ms)':<46}{statistics.median(load.latencies or [0]):>14.2f}")
    print(f"{'move latency p99 (ms)':<46}{pct(load.latencies, 0.99):>14.2f}")
    print(f"{'  baseline: moves/s via GameHost, no gRPC':<46}{base_rate:>14.0f}")
    print(f"moves refused (made from a stale view; a client retries): {load.errors or 'none'}")
    print(verdict)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=int(os.environ.get("PARLOR_LOAD_GAMES", 200)))
    parser.add_argument(
        "--seconds", type=int, default=int(os.environ.get("PARLOR_LOAD_SECONDS", 60))
    )
    arguments = parser.parse_args()
    with find_backends() as backends:
        name = f"parlor_load_{uuid.uuid4().hex[:8]}"
        with scratch_database(backends.database_url, name) as url:
            asyncio.run(main(arguments, url, backends.nats_url))
