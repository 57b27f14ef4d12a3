"""Connect 4x4 over gRPC: move latency (p50/p99) and moves/s with 50 games in parallel.

Runs the service in-process on real PostgreSQL and NATS (found as the tests find
them: settings, local servers, embedded servers), in a scratch database.
Baselines in the same run: the same moves through the game host without gRPC
(store + rules only), and a read-only GetGame round trip over gRPC.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
import uuid

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import PostgresEventStore, migrate
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import ServerSettings, running
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import SERVING as C4_SERVING
from parlor.services.connect4x4.game import Codec, rules

GAMES = int(__import__("os").environ.get("PARLOR_BENCH_GAMES", "50"))
AUTH = AuthSettings(private_key=generate_private_key())


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def created(target: str, request: pb.CreateGameRequest) -> pb.Game:
    """A platform service seats the two players (a player may seat only themselves and bots)."""
    token = issue_token(AUTH, "service:bench", roles=("service",), audience=("connect4x4",))
    async with client.channel(target, token) as channel:
        reply = await pb_grpc.Connect4x4ServiceStub(channel).CreateGame(request)
    return reply.game


async def one_game(target: str, latencies: list[float], rng: random.Random) -> int:
    game_id = uuid.uuid4().hex
    a_tok, b_tok = issue_token(AUTH, f"a-{game_id}"), issue_token(AUTH, f"b-{game_id}")
    async with client.channel(target, a_tok) as a, client.channel(target, b_tok) as b:
        stubs = [pb_grpc.Connect4x4ServiceStub(a), pb_grpc.Connect4x4ServiceStub(b)]
        seats = [
            common_pb2.Seat(player_id=f"a-{game_id}"),
            common_pb2.Seat(player_id=f"b-{game_id}"),
        ]
        game = await created(target, pb.CreateGameRequest(game_id=game_id, seats=seats))
        moves = 0
        while game.status == pb.STATUS_IN_PROGRESS:
            move = rng.choice(list(game.legal_moves))
            started = time.perf_counter()
            reply = await stubs[game.turn].PlayMove(
                pb.PlayMoveRequest(game_id=game_id, move=move, command_id=f"m{moves}")
            )
            latencies.append((time.perf_counter() - started) * 1000)
            game = reply.game
            moves += 1
        return moves


async def over_grpc(target: str) -> tuple[list[float], float, int]:
    latencies: list[float] = []
    rng = random.Random(1)
    started = time.perf_counter()
    moves = await asyncio.gather(
        *(one_game(target, latencies, random.Random(rng.random())) for _ in range(GAMES))
    )
    return latencies, time.perf_counter() - started, sum(moves)


async def reads(target: str) -> list[float]:
    game_id = uuid.uuid4().hex
    async with client.channel(target, issue_token(AUTH, "reader")) as ch:
        stub = pb_grpc.Connect4x4ServiceStub(ch)
        seats = [common_pb2.Seat(player_id="reader"), common_pb2.Seat(player_id="other")]
        await created(target, pb.CreateGameRequest(game_id=game_id, seats=seats))
        samples = []
        for _ in range(300):
            t = time.perf_counter()
            await stub.GetGame(pb.GetGameRequest(game_id=game_id))
            samples.append((time.perf_counter() - t) * 1000)
        return samples


async def host_only(url: str) -> tuple[list[float], float, int]:
    """The same kind of games through GameHost directly: the store and the rules, no gRPC."""
    async with PostgresEventStore(url) as store:
        host = GameHost("connect4x4", rules(), Codec(), store)
        latencies: list[float] = []

        async def game(rng: random.Random) -> int:
            game_id = uuid.uuid4().hex
            outcome = await host.create(
                game_id, OpenTable((Seat("a"), Seat("b")), c4.CreateGame(c4.Config()))
            )
            moves = 0
            while not c4.is_terminal(outcome.state.game):
                move = rng.choice(c4.legal_moves(outcome.state.game))
                t = time.perf_counter()
                outcome = await host.execute(game_id, move, command_id=f"m{moves}")
                latencies.append((time.perf_counter() - t) * 1000)
                moves += 1
            return moves

        started = time.perf_counter()
        moves = await asyncio.gather(*(game(random.Random(i)) for i in range(GAMES)))
        return latencies, time.perf_counter() - started, sum(moves)


async def main(database_url: str) -> None:
    await migrate(database_url)
    os.environ["PARLOR_DATABASE_URL"] = database_url
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0)
    no_limit = RateLimitSettings(per_second=0, burst=1)
    async with running(settings, [C4_SERVING.component], AUTH, no_limit) as server:
        target = f"127.0.0.1:{server.port}"
        grpc_lat, grpc_s, grpc_moves = await over_grpc(target)
        read_lat = await reads(target)
    host_lat, host_s, host_moves = await host_only(database_url)
    print(f"{GAMES} games in parallel, random legal moves to the end")
    print(f"{'measure':<44}{'moves/s':>10}{'p50 ms':>10}{'p99 ms':>10}")
    print(
        f"{'PlayMove over gRPC':<44}{grpc_moves / grpc_s:>10.0f}"
        f"{statistics.median(grpc_lat):>10.2f}{pct(grpc_lat, 0.99):>10.2f}"
    )
    print(
        f"{'  baseline: GameHost.execute, no gRPC':<44}{host_moves / host_s:>10.0f}"
        f"{statistics.median(host_lat):>10.2f}{pct(host_lat, 0.99):>10.2f}"
    )
    print(
        f"{'  baseline: GetGame round trip (read only)':<44}{'':>10}"
        f"{statistics.median(read_lat):>10.2f}{pct(read_lat, 0.99):>10.2f}"
    )


if __name__ == "__main__":
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as settings:
            os.environ.update(settings)
            asyncio.run(main(settings["PARLOR_DATABASE_URL"]))
