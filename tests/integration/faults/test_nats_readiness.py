"""Readiness while NATS is away (issue 38, item 6): the services stay ready, the bus says why.

A game service stores moves while NATS is down (the relay publishes them when it is back),
so its readiness (its own health name, which the Kubernetes probe asks) stays SERVING; the
bus has a health name of its own, ``parlor.bus``, NOT_SERVING for the outage, and the
metrics say the same (``parlor_health_serving``, ``parlor_consumer_up``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kits.ports import restartable_port

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.devinfra.embedded import NatsServer
from parlor.kit.server import BUS_HEALTH
from parlor.telemetry.metrics import CONSUMER_UP, HEALTH_SERVING

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
GAME_SERVICE = "parlor.connect4x4.v1.Connect4x4Service"
SCORING_SERVICE = "parlor.scoring.v1.ScoringService"
# Ada and Bob fill the front side's columns without making a line.
MOVES = [("ada", "af"), ("bob", "bf"), ("ada", "cf"), ("bob", "df"), ("ada", "ef"), ("bob", "ff")]


async def status(target: str, name: str) -> int:
    async with grpc.aio.insecure_channel(target) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=name), timeout=5
        )
        return int(reply.status)


async def until(target: str, name: str, want: int, seconds: float = 15.0) -> float:
    started = time.monotonic()
    while await status(target, name) != want:
        assert time.monotonic() - started < seconds, f"{name!r} never became {want}"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


def gauge(metric: Any, label: str) -> float:
    return float(metric.labels(label)._value.get())


async def consumers_up(want: float, seconds: float = 5.0) -> None:
    """Wait until ``parlor_consumer_up`` of scoring's and the matches' consumers is ``want``."""
    started = time.monotonic()
    while {gauge(CONSUMER_UP, c) for c in ("scoring", "connect4x4-matches")} != {want}:
        assert time.monotonic() - started < seconds, f"the consumers are not {want}"
        await asyncio.sleep(0.05)


async def test_with_nats_stopped_the_services_stay_ready_and_store_moves_and_the_bus_says_not(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    nats_server = NatsServer(tmp_path / "nats", port=restartable_port())
    nats_server.start()
    monkeypatch.setenv("PARLOR_NATS_URL", nats_server.url)
    monkeypatch.setenv("PARLOR_NATS_STREAM", f"READY_{uuid.uuid4().hex[:8]}")
    game_id = uuid.uuid4().hex
    try:
        async with start_platform("connect4x4", "scoring") as platform:
            target = platform.target
            await until(target, BUS_HEALTH, SERVING)
            async with platform.service_channel() as ch:
                seats = [common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")]
                created = await pb_grpc.Connect4x4ServiceStub(ch).CreateGame(
                    pb.CreateGameRequest(game_id=game_id, seats=seats)
                )
            async with platform.channel("ada") as a, platform.channel("bob") as b:
                stubs = {
                    "ada": pb_grpc.Connect4x4ServiceStub(a),
                    "bob": pb_grpc.Connect4x4ServiceStub(b),
                }

                nats_server.stop()
                took = await until(target, BUS_HEALTH, NOT_SERVING)
                for i, (who, move) in enumerate(MOVES):  # stored all the same
                    reply = await stubs[who].PlayMove(
                        pb.PlayMoveRequest(game_id=game_id, move=move, command_id=f"m{i}"),
                        timeout=10,
                    )
                assert reply.game.version == created.game.version + len(MOVES)
                for name in ("", GAME_SERVICE, SCORING_SERVICE):
                    assert await status(target, name) == SERVING, f"{name!r} stays ready"
                assert gauge(HEALTH_SERVING, BUS_HEALTH) == 0
                assert gauge(HEALTH_SERVING, GAME_SERVICE) == 1
                # (each consumer finds out as its fetch in flight ends: within a second)
                await consumers_up(0)
                problems = (await platform.server.check_health())[BUS_HEALTH]
                assert "NATS does not answer" in problems

                nats_server.start()
                back = await until(target, BUS_HEALTH, SERVING)
                assert gauge(HEALTH_SERVING, BUS_HEALTH) == 1
                await consumers_up(1)
                print(
                    f"parlor.bus NOT_SERVING {took:.2f} s after NATS stopped, "
                    f"SERVING {back:.2f} s after it started"
                )
    finally:
        nats_server.stop()
