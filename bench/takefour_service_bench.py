"""Take Four service speed: 8 players acting at once on one game, over gRPC, on PostgreSQL.

Run: ``python bench/takefour_service_bench.py [--seconds 10]``. Finds PostgreSQL and
NATS like the tests (a scratch database), runs the dictionary and Take Four in this
process and the 8 players in a second process, and prints actions/s and latency
p50/p99 per action, with conflicts retried per action, twice: with the service's
per-game queue (the default) and with writers racing (``PARLOR_TAKEFOUR_QUEUE_PER_GAME
=false``: every conflict is decided again on the server). The baseline, measured in the
same run, is the in-process engine applying the same kind of actions with no I/O.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import queue
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test kits

from kits.takefour import crc_word, tile_set

from parlor.common.v1 import common_pb2
from parlor.core.decider import execute
from parlor.core.errors import ParlorError
from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.main import available
from parlor.kit.server import ServerSettings, running
from parlor.rules import takefour as tf
from parlor.rules.takefour.rules import attach_verdicts
from parlor.services.takefour.game import tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

# The identity key this run signs with; in the environment, so the players process
# (spawned, importing this module again) signs with the same one.
SECRET = os.environ.setdefault("PARLOR_BENCH_KEY", generate_private_key())
PLAYERS = [f"p{i}" for i in range(8)]
TILES = tile_set("A8 E8 I4 O4 S4 T4 R4 N4", jokers=2)
"""42 tiles for 8 players: a start deal, a last deal of one each, then Done: rounds turn over."""


# --- the players' policy (the same over gRPC and in process) ---------------------------------


def free_cells(grid: set[tuple[int, int]]) -> list[tuple[int, int]]:
    if not grid:
        return [(0, 0)]
    return sorted(
        {
            (x + dx, y + dy)
            for x, y in grid
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if (x + dx, y + dy) not in grid
        }
    )


def choose(
    hand: list[tuple[int, str]],
    grid: list[tuple[int, int]],
    bag: int,
    agrees: bool,
    rng: random.Random,
) -> tuple[str, tuple[Any, ...]]:
    """A plausible action: mostly placements, some rearranging, a call when every tile is down."""
    roll = rng.random()
    if grid and roll < 0.08:
        return "back", rng.choice(grid)
    if grid and roll < 0.14:
        return "move", (rng.choice(grid), rng.choice(free_cells(set(grid))))
    if bag and roll < 0.18:
        return ("withdraw" if agrees else "agree"), ()
    if hand:
        tile, face = rng.choice(hand)
        return "place", (tile, rng.choice(free_cells(set(grid))), "E" if face == "?" else "")
    if grid:
        return ("takefour" if bag else "done"), ()
    return "look", ()


def request(stub: Any, game: pb.Game, seat: int, rng: random.Random, cid: str) -> Any:
    me = game.seats[seat]
    hand = [(t.id, t.face) for t in me.hand]
    grid = [(g.x, g.y) for g in me.grid]
    kind, args = choose(hand, grid, game.bag_count, me.agrees_to_deal, rng)
    gid = game.game_id
    if kind == "back":
        return stub.TakeBackTile(
            pb.TakeBackTileRequest(game_id=gid, command_id=cid, cell=pb.Cell(x=args[0], y=args[1]))
        )
    if kind == "move":
        message = pb.MoveTileRequest(game_id=gid, command_id=cid)
        getattr(message, "from").CopyFrom(pb.Cell(x=args[0][0], y=args[0][1]))
        message.to.CopyFrom(pb.Cell(x=args[1][0], y=args[1][1]))
        return stub.MoveTile(message)
    if kind == "agree":
        return stub.AgreeToDeal(pb.AgreeToDealRequest(game_id=gid, command_id=cid))
    if kind == "withdraw":
        return stub.WithdrawAgreement(pb.WithdrawAgreementRequest(game_id=gid, command_id=cid))
    if kind == "place":
        tile, (x, y), letter = args
        return stub.PlaceTile(
            pb.PlaceTileRequest(game_id=gid, command_id=cid, tile=tile, x=x, y=y, letter=letter)
        )
    if kind == "takefour":
        return stub.CallTakeFour(pb.CallTakeFourRequest(game_id=gid, command_id=cid))
    if kind == "done":
        return stub.CallDone(pb.CallDoneRequest(game_id=gid, command_id=cid))
    return stub.GetGame(pb.GetGameRequest(game_id=gid))


# --- the players, in their own process --------------------------------------------------------


async def players(target: str, game_id: str, seconds: float) -> dict[str, Any]:
    auth = AuthSettings(private_key=SECRET)
    latencies: list[float] = []
    refused = 0

    async def player(seat: int) -> None:
        nonlocal refused
        token = issue_token(auth, PLAYERS[seat])
        async with client.channel(target, token) as channel:
            stub = pb_grpc.TakeFourServiceStub(channel)
            game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
            rng = random.Random(seat)
            deadline = time.perf_counter() + seconds
            n = 0
            while time.perf_counter() < deadline and game.phase != pb.PHASE_OVER:
                n += 1
                started = time.perf_counter()
                try:
                    response = await request(stub, game, seat, rng, f"{PLAYERS[seat]}-{n}")
                except grpc.aio.AioRpcError:
                    refused += 1
                    game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
                    continue
                latencies.append(time.perf_counter() - started)
                game = response.game

    started = time.perf_counter()
    await asyncio.gather(*(player(seat) for seat in range(len(PLAYERS))))
    return {"latencies": latencies, "refused": refused, "elapsed": time.perf_counter() - started}


def run_players(target: str, game_id: str, seconds: float, out: Any) -> None:
    out.put(asyncio.run(players(target, game_id, seconds)))


# --- the service, in this process -------------------------------------------------------------


async def serve_and_measure(queue_per_game: bool, seconds: float) -> dict[str, Any]:
    os.environ["PARLOR_TAKEFOUR_QUEUE_PER_GAME"] = "true" if queue_per_game else "false"
    factories = available()
    auth = AuthSettings(private_key=SECRET)
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=2)
    async with running(settings, [factories["dictionary"]], auth) as dictionary:
        os.environ["PARLOR_DICTIONARY_TARGET"] = f"127.0.0.1:{dictionary.port}"
        async with running(settings, [factories["takefour"]], auth) as server:
            target = f"127.0.0.1:{server.port}"
            game_id = uuid.uuid4().hex
            # a platform service seats the players (a player may seat only themselves and bots)
            service = issue_token(auth, "service:bench", roles=("service",), audience=("takefour",))
            async with client.channel(target, service) as channel:
                await pb_grpc.TakeFourServiceStub(channel).CreateGame(
                    pb.CreateGameRequest(
                        game_id=game_id,
                        seats=[common_pb2.Seat(player_id=p) for p in PLAYERS],
                        config=pb.Config(tiles=tiles_pb(TILES), target=1_000_000, max_rounds=1_000),
                    )
                )
            store = server.components[0].extra["store"]
            appends, conflicts = store.appends, store.conflicts
            out: Any = multiprocessing.get_context("spawn").Queue()
            process = multiprocessing.get_context("spawn").Process(
                target=run_players, args=(target, game_id, seconds, out)
            )
            process.start()
            result = await asyncio.to_thread(result_of, process, out)
            await asyncio.to_thread(process.join)
            result["appends"] = store.appends - appends
            result["conflicts"] = store.conflicts - conflicts
            return result


def result_of(process: Any, out: Any) -> dict[str, Any]:
    """The players' figures; never waits on a process that is gone (say, after a Ctrl-C)."""
    while True:
        try:
            found: dict[str, Any] = out.get(timeout=0.5)
            return found
        except queue.Empty:
            if not process.is_alive():
                raise RuntimeError(f"the players exited ({process.exitcode})") from None


def engine_command(seat: int, kind: str, args: tuple[Any, ...]) -> tf.TakeFourCommand | None:
    """The engine command for one of ``choose``'s actions."""
    match kind:
        case "back":
            x, y = args
            return tf.TakeBackTile(seat, x, y)
        case "move":
            (fx, fy), (tx, ty) = args
            return tf.MoveTile(seat, fx, fy, tx, ty)
        case "agree":
            return tf.AgreeToDeal(seat)
        case "withdraw":
            return tf.WithdrawAgreement(seat)
        case "place":
            tile, (x, y), letter = args
            return tf.PlaceTile(seat, tile, x, y, letter or None)
        case "takefour":
            return tf.CallTakeFour(seat)
        case "done":
            return tf.CallDone(seat)
    return None


def engine_baseline(seconds: float) -> tuple[int, float]:
    """The same policy applied in process: decide + evolve, verdicts from a pseudo-lexicon."""
    config = tf.TakeFourConfig(tiles=TILES, target=1_000_000, max_rounds=1_000)
    state, _ = execute(
        tf.TAKE_FOUR, tf.TAKE_FOUR.initial_state(), tf.CreateGame(config, tuple(PLAYERS))
    )
    rng = random.Random(1)
    actions = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        if state.phase is tf.Phase.BETWEEN_ROUNDS:
            order = list(range(TILES.size))
            rng.shuffle(order)
            state, _ = execute(tf.TAKE_FOUR, state, tf.StartRound(tuple(order)))
        seat = rng.randrange(len(PLAYERS))
        p = state.players[seat]
        hand = [(t, TILES.face(t)) for t in p.hand]
        kind, args = choose(hand, sorted(p.grid), len(state.bag), p.agrees_to_deal, rng)
        command = engine_command(seat, kind, args)
        if command is None:
            continue
        with contextlib.suppress(ParlorError):
            state, _ = execute(tf.TAKE_FOUR, state, attach_verdicts(state, command, crc_word))
        actions += 1
    return actions, time.perf_counter() - started


def report(name: str, result: dict[str, Any]) -> None:
    latencies = sorted(result["latencies"])
    done = len(latencies)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(0.99 * (done - 1))] * 1000
    print(
        f"  {name:<34} {done / result['elapsed']:8.0f} actions/s   p50 {p50:6.1f} ms"
        f"   p99 {p99:6.1f} ms   conflicts retried/action {result['conflicts'] / done:5.2f}"
        f"   ({done} acked, {result['refused']} refused, {result['appends']} appends)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    actions, elapsed = engine_baseline(args.seconds / 2)
    with (
        find_backends() as found,
        scratch_settings(found.database_url, found.nats_url, "bench") as settings,
    ):
        from parlor.eventstore import migrate

        url = settings["PARLOR_DATABASE_URL"]
        # a throughput benchmark, not one of the limiter: eight players act as fast as they
        # can (as every other benchmark's platform, ``platform_env``)
        os.environ.update(settings, PARLOR_JWT_PRIVATE_KEY=SECRET, PARLOR_RATE_LIMIT_PER_SECOND="0")
        asyncio.run(migrate(url))
        print(f"Take Four service: 8 players acting at once on one game for {args.seconds:.0f} s")
        print(f"  {'in-process engine (baseline)':<34} {actions / elapsed:8.0f} actions/s")
        for queue in (True, False):
            name = "gRPC, per-game queue (default)" if queue else "gRPC, writers race and retry"
            report(name, asyncio.run(serve_and_measure(queue, args.seconds)))


if __name__ == "__main__":
    main()
