"""NATS is not there when the platform starts: its services are ready (they store commands,
the relay publishes them later), ``parlor.bus`` NOT_SERVING until NATS answers.

``parlor-platform`` runs as a process of its own, pointed at a private ``nats-server``
that starts only after the platform is up; PostgreSQL is the test session's database.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import grpc
import nats
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kits.ports import restartable_ports

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.devinfra.embedded import NatsServer
from parlor.kit import client
from parlor.kit.auth import AuthSettings, issue_token

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
GAME_SERVICE = "parlor.connect4x4.v1.Connect4x4Service"
SCORING_SERVICE = "parlor.scoring.v1.ScoringService"
BUS = "parlor.bus"


def _health(target: str, service: str) -> int:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        return int(reply.status)


def _wait_health(target: str, service: str, status: int, seconds: float) -> float:
    started = time.monotonic()
    while _health(target, service) != status:
        if time.monotonic() - started > seconds:
            raise AssertionError(f"{service!r} did not become {status} in {seconds} s")
        time.sleep(0.1)
    return time.monotonic() - started


def test_a_platform_started_before_nats_serves_and_publishes_once_nats_starts(
    own_database: str, tmp_path: Path
) -> None:
    # A database of its own: its new stream is relayed from the start of the database's
    # order, which in the session's would be every event the tests before it stored.
    nats_port, port = restartable_ports(2)  # two different ones: NATS starts after the platform
    nats_server = NatsServer(tmp_path / "nats", port=nats_port)  # not started yet
    stream = f"LATE_{uuid.uuid4().hex[:8]}"
    env = dict(
        os.environ,
        PARLOR_NATS_URL=nats_server.url,
        PARLOR_NATS_STREAM=stream,
        PARLOR_GRPC_PORT=str(port),
        PARLOR_METRICS_PORT="0",
        PARLOR_LOG_FORMAT="text",
    )
    platform = Path(sys.executable).with_name("parlor-platform")
    proc = subprocess.Popen(
        [str(platform), "--only", "connect4x4", "scoring"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    target = f"127.0.0.1:{port}"
    output: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            if line.startswith("parlor: serving"):
                break
        assert proc.poll() is None, "".join(output)
        assert _health(target, "") == SERVING  # the process is alive and answers
        # Ready without NATS: a readiness probe keeps them in service (issue 38, item 6).
        assert _health(target, GAME_SERVICE) == SERVING
        assert _health(target, SCORING_SERVICE) == SERVING
        assert _health(target, BUS) == NOT_SERVING, "no NATS yet"
        game_id = uuid.uuid4().hex
        asyncio.run(_create(target, game_id))  # stored now, published once NATS answers
        time.sleep(1.0)
        assert proc.poll() is None, "it keeps trying instead of exiting"
        assert _health(target, BUS) == NOT_SERVING

        nats_server.start()
        took = _wait_health(target, BUS, SERVING, 15)
        print(f"{BUS} SERVING {took:.2f} s after NATS started")

        asyncio.run(_see_it_published(nats_server.url, stream, game_id))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        nats_server.stop()


async def _create(target: str, game_id: str) -> None:
    auth = AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])
    # ada and bob sit together without matchmaking: a platform service creates their game
    service = issue_token(auth, "service:tests", "tests", ("service",), audience=("connect4x4",))
    async with client.channel(target, service) as channel:
        stub = pb_grpc.Connect4x4ServiceStub(channel)
        seats = [common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")]
        await stub.CreateGame(pb.CreateGameRequest(game_id=game_id, seats=seats), timeout=10)


async def _see_it_published(url: str, stream: str, game_id: str) -> None:
    nc = await nats.connect(url)
    try:
        js = nc.jetstream()
        deadline = time.monotonic() + 15
        while True:
            try:
                msg = await js.get_last_msg(stream, f"{os.environ['PARLOR_NATS_SUBJECT_PREFIX']}.>")
                if msg.headers and msg.headers["Parlor-Stream"] == f"connect4x4-{game_id}":
                    return
            except nats.js.errors.NotFoundError:
                pass
            assert time.monotonic() < deadline, "the game's events never reached NATS"
            await asyncio.sleep(0.2)
    finally:
        await nc.close()
