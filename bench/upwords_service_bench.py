"""Upwords service figures: move latency over gRPC, including the dictionary's word check.

Run: ``.venv/bin/python bench/upwords_service_bench.py [--games 12] [--moves 16]``.
Two human seats play real games (each move is the best play of the mover's own
rack, found by the bot outside the timing); every ``Play`` call is timed end to
end over loopback gRPC: token check, load, the engine's board rules, ONE
CheckWords batch to the dictionary service over gRPC, decide, append to
PostgreSQL, the per-viewer response. Baselines, measured in the same run on the
same moves:

- the in-process engine: ``words_formed`` + ``decide`` on the same state and play;
- a raw ``CheckWords`` round trip with the same words, straight to the dictionary.

PostgreSQL and NATS are found like the tests find them (a scratch database is
created and dropped). Bot move generation on mid-game boards is in
``bench/upwords_bench.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from typing import Any

from parlor.common.v1 import common_pb2
from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.dictionary.v1 import dictionary_pb2_grpc as dpb_grpc
from parlor.eventstore import migrate
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.words.botwords import index_once
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.server import ServerSettings, running
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import UpwordsBot
from parlor.services.dictionary.component import dictionary
from parlor.services.upwords.game import SERVING as UPWORDS_SERVING
from parlor.services.upwords.game import rules
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

SECRET = generate_private_key()  # the identity key this run signs with
AUTH = AuthSettings(private_key=SECRET)


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(name: str, samples: list[float]) -> str:
    return (
        f"  {name:<44} p50 {pct(samples, 0.5):7.2f} ms   p99 {pct(samples, 0.99):7.2f} ms"
        f"   mean {statistics.fmean(samples):7.2f} ms   (n={len(samples)})"
    )


async def bench(games: int, moves: int) -> None:
    helper = await index_once(UpwordsBot).get()
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    with (
        find_backends() as backends,
        scratch_settings(backends.database_url, backends.nats_url, "bench") as scratch,
    ):
        await migrate(scratch["PARLOR_DATABASE_URL"])
        os.environ.update(
            scratch,
            PARLOR_JWT_PRIVATE_KEY=SECRET,
            PARLOR_LOG_LEVEL="WARNING",
            # a throughput benchmark, not one of the limiter: its few identities call as
            # fast as they can (as every other benchmark's platform, ``platform_env``)
            PARLOR_RATE_LIMIT_PER_SECOND="0",
        )
        async with running(settings, [dictionary], AUTH) as dict_server:
            os.environ["PARLOR_DICTIONARY_TARGET"] = f"127.0.0.1:{dict_server.port}"
            async with running(settings, [UPWORDS_SERVING.component], AUTH) as server:
                (component,) = server.components
                servicer = component.extra["servicer"]
                assert isinstance(servicer, GameService)
                target = f"127.0.0.1:{server.port}"
                dict_target = f"127.0.0.1:{dict_server.port}"
                async with (
                    client.channel(target, issue_token(AUTH, "p0")) as c0,
                    client.channel(target, issue_token(AUTH, "p1")) as c1,
                    client.channel(dict_target, issue_token(AUTH, "bench")) as dc,
                    # a platform service seats p0 and p1 (players seat only themselves, bots)
                    client.channel(
                        target,
                        issue_token(
                            AUTH, "service:bench", roles=("service",), audience=("upwords",)
                        ),
                    ) as cs,
                ):
                    stubs = {
                        0: pb_grpc.UpwordsServiceStub(c0),
                        1: pb_grpc.UpwordsServiceStub(c1),
                        -1: pb_grpc.UpwordsServiceStub(cs),
                    }
                    words_stub = dpb_grpc.DictionaryServiceStub(dc)
                    await run_games(servicer, stubs, words_stub, helper, games, moves)


async def run_games(
    servicer: GameService[Any, Any],
    stubs: dict[int, pb_grpc.UpwordsServiceStub],
    words_stub: dpb_grpc.DictionaryServiceStub,
    helper: Any,
    games: int,
    moves: int,
) -> None:
    decider = rules()
    play_ms: list[float] = []
    engine_ms: list[float] = []
    check_ms: list[float] = []
    words_per_play: list[int] = []
    lexicon = ""
    for g in range(games):
        game_id = f"bench{g}-{uuid.uuid4().hex[:8]}"
        await stubs[-1].CreateGame(
            pb.CreateGameRequest(
                game_id=game_id,
                seats=[common_pb2.Seat(player_id="p0"), common_pb2.Seat(player_id="p1")],
            )
        )
        for _ in range(moves):
            table, _version = await servicer.host.load(game_id)
            state = table.game
            if state.phase is not uw.Phase.PLAYING:
                break
            seat = state.to_move
            best = helper.best_play(state.board, state.racks[seat])
            if best is None:
                await stubs[seat].Pass(pb.PassRequest(game_id=game_id))
                continue
            lexicon = state.config.lexicon
            # Baseline 1: the engine alone, in-process, on the very same state and play.
            t = time.perf_counter()
            formed = uw.words_formed(state, uw.Play(seat, best.placements))
            decider.decide(table, uw.Play(seat, best.placements, dict.fromkeys(formed, True)))
            engine_ms.append((time.perf_counter() - t) * 1000)
            # Baseline 2: one raw CheckWords round trip with the same words.
            t = time.perf_counter()
            await words_stub.CheckWords(
                dpb.CheckWordsRequest(lexicon=lexicon, words=list(dict.fromkeys(formed)))
            )
            check_ms.append((time.perf_counter() - t) * 1000)
            words_per_play.append(len(formed))
            # The move over gRPC, all included.
            request = pb.PlayRequest(
                game_id=game_id,
                placements=[
                    pb.Placement(row=p.row, col=p.col, tile=p.tile) for p in best.placements
                ],
            )
            t = time.perf_counter()
            await stubs[seat].Play(request)
            play_ms.append((time.perf_counter() - t) * 1000)

    print(f"Upwords service: {games} games, {len(play_ms)} plays, lexicon {lexicon}")
    print(f"  words checked per play: mean {statistics.fmean(words_per_play):.2f}")
    print(line("Play over gRPC (dictionary call included)", play_ms))
    print(line("baseline: engine words_formed + decide", engine_ms))
    print(line("baseline: raw CheckWords round trip", check_ms))
    rest = [p - e - c for p, e, c in zip(play_ms, engine_ms, check_ms, strict=True)]
    print(line("the rest (store, gRPC, views, history read)", rest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--moves", type=int, default=16)
    args = parser.parse_args()
    asyncio.run(bench(args.games, args.moves))


if __name__ == "__main__":
    main()
