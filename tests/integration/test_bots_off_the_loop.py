"""A bot's thinking never holds up another caller (issue 37 item 1): while one player's bots
think in several games, another caller's calls on the same server answer at once.

Per game, over gRPC against a running platform: a guest starts games against three bots
each (the bots move at once, in the guest's calls), and meanwhile a probe calls ``GetGame``
on a game of its own every 20 ms. Connect 4x4's bots search 20,000 nodes (about 0.4 s a
move): on main that search ran on the event loop, and the probe waited for it (p95 well over
0.3 s); Upwords' and Take Four's searched in threads holding the GIL (the probe's p95:
180 ms and 65 ms). Bots now think in the process's bot workers (``gamehost.thinking``); the
probe's p95 stays under ``P95_SECONDS``: the probe's p95 is 3-30 ms on a quiet machine, the
loop never blocked, only the two cores shared by the server, the bot worker and the test, and
up to ~60 ms with other suites running beside it. The bound is wide enough for that and
still catches a search on the loop (Connect 4x4: seconds) or in a thread (Upwords: 180 ms);
the issue's figure (p99 at most 50 ms above an idle platform's, measured in the same run) is
``bench/bots_bench.py``'s, a benchmark, not a timed test.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4grpc
from parlor.rules.connect4x4.hosting import GAME as C4_HOSTING
from parlor.takefour.v1 import takefour_pb2 as tfpb
from parlor.takefour.v1 import takefour_pb2_grpc as tfgrpc
from parlor.upwords.v1 import upwords_pb2 as uwpb
from parlor.upwords.v1 import upwords_pb2_grpc as uwgrpc

pytestmark = [pytest.mark.integration, pytest.mark.serial]  # measures latencies

P95_SECONDS = 0.12
GAMES = 4


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p) for p in players]


async def probed(get: Callable[[], Awaitable[Any]], busy: Awaitable[Any]) -> list[float]:
    """``get``'s latencies, called every 20 ms for as long as ``busy`` runs."""
    task = asyncio.ensure_future(busy)
    latencies = []
    while not task.done():
        started = time.perf_counter()
        await get()
        latencies.append(time.perf_counter() - started)
        await asyncio.sleep(0.02)
    await task
    return latencies


def p95(latencies: list[float]) -> float:
    """The 95th percentile (printed with the median and the max: ``pytest -s`` shows them)."""
    value = statistics.quantiles(latencies, n=20)[-1]
    print(
        f"probe: {len(latencies)} calls, median {statistics.median(latencies) * 1000:.1f} ms,"
        f" p95 {value * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
    )
    return value


@contextlib.asynccontextmanager
async def guest_and_probe(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch, name: str, stub: Callable[[Any], Any]
) -> AsyncIterator[tuple[Any, Any, Any]]:
    """The game's server (pointed at a dictionary server of its own) and ``stub`` for a
    guest and for the probe."""
    async with start_platform("dictionary") as dictionary:
        monkeypatch.setenv("PARLOR_DICTIONARY_TARGET", dictionary.target)
        async with (
            start_platform(name) as platform,
            platform.channel("guest") as guest,
            platform.channel("probe") as probe,
        ):
            yield platform, stub(guest), stub(probe)


async def test_connect4x4_strong_bots_thinking_in_four_games_hold_up_no_one(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(C4_HOSTING, "bot_budget", 20_000)  # the rules' bot, as the game hosts it
    async with (
        start_platform("connect4x4") as platform,
        platform.channel("guest") as guest_ch,
        platform.channel("probe") as probe_ch,
    ):
        guest, probe = (
            c4grpc.Connect4x4ServiceStub(guest_ch),
            c4grpc.Connect4x4ServiceStub(probe_ch),
        )
        mine = uuid.uuid4().hex
        await probe.CreateGame(
            c4pb.CreateGameRequest(
                game_id=mine, seats=seats("probe", "bot:random"), config=c4pb.Config(players=2)
            )
        )

        async def bots_think() -> None:
            # The bots sit first: each CreateGame returns after their three moves.
            await asyncio.gather(
                *(
                    guest.CreateGame(
                        c4pb.CreateGameRequest(
                            seats=seats("bot:strong", "bot:strong", "bot:strong", "guest"),
                            config=c4pb.Config(players=4, first_seat=0),
                        )
                    )
                    for _ in range(GAMES)
                )
            )

        started = time.perf_counter()
        latencies = await probed(
            lambda: probe.GetGame(c4pb.GetGameRequest(game_id=mine)), bots_think()
        )
        assert time.perf_counter() - started > 1.0  # the bots did think (12 moves of ~0.4 s)
        assert p95(latencies) < P95_SECONDS, (p95(latencies), max(latencies))


async def test_upwords_best_bots_thinking_in_four_games_hold_up_no_one(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = guest_and_probe(start_platform, monkeypatch, "upwords", uwgrpc.UpwordsServiceStub)
    async with made as (_, guest, probe):
        mine = uuid.uuid4().hex
        await probe.CreateGame(
            uwpb.CreateGameRequest(game_id=mine, seats=seats("probe", "bot:random"))
        )

        async def one_game() -> None:
            made = await guest.CreateGame(
                uwpb.CreateGameRequest(seats=seats("bot:best", "bot:best", "bot:best", "guest"))
            )
            game = made.game
            for _ in range(2):  # the guest passes: the three bots think again
                if game.status != uwpb.STATUS_IN_PROGRESS or list(game.seats_to_move) != [3]:
                    break
                passed = await guest.Pass(uwpb.PassRequest(game_id=game.game_id))
                game = passed.game

        async def bots_think() -> None:
            await asyncio.gather(*(one_game() for _ in range(GAMES)))

        latencies = await probed(
            lambda: probe.GetGame(uwpb.GetGameRequest(game_id=mine)), bots_think()
        )
        assert p95(latencies) < P95_SECONDS, (p95(latencies), max(latencies))


async def test_takefour_bots_racing_in_four_games_hold_up_no_one(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bots as fast as they can plan (no person's pace, no pause): they think all the time.
    monkeypatch.setenv("PARLOR_TAKEFOUR_BOT_HUMAN_PACE", "false")
    monkeypatch.setenv("PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS", "0")
    made = guest_and_probe(start_platform, monkeypatch, "takefour", tfgrpc.TakeFourServiceStub)
    async with made as (platform, guest, probe):
        mine = uuid.uuid4().hex
        await probe.CreateGame(
            tfpb.CreateGameRequest(game_id=mine, seats=seats("probe", "bot:easy"))
        )
        for _ in range(GAMES):
            await guest.CreateGame(
                tfpb.CreateGameRequest(seats=seats("guest", "bot:hard", "bot:hard", "bot:hard"))
            )
        (component,) = [c for c in platform.server.components if c.name == "takefour"]
        runner = component.extra["bots"]
        # the runner first builds its bots' word index (seconds on a slow machine): the
        # measured window starts once they play
        for _ in range(1200):  # at most 120 s
            if runner.steps:
                break
            await asyncio.sleep(0.1)
        before = runner.steps
        latencies = await probed(
            lambda: probe.GetGame(tfpb.GetGameRequest(game_id=mine)), asyncio.sleep(4)
        )
        assert runner.steps - before >= 10  # the bots played meanwhile
        assert p95(latencies) < P95_SECONDS, (p95(latencies), max(latencies))
