"""Take Four under a kill: 4 seats act at once while the platform is killed (-9) and restarted.

The Take Four service runs as a process of its own (``parlor-platform --only takefour``)
against the test session's PostgreSQL and NATS, its words checked by an in-process
dictionary. Players retry a call that failed for want of a server with the same command
id, as clients are told to. Afterwards: every acknowledged command is stored once, no
refused one is, no command is stored twice, and the game the service reports (round
scores included) is the one the stored events replay to.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import grpc
import pytest
from kits.ports import restartable_port
from kits.takefour import tile_set
from takefour_actions import next_action, stored_game

from parlor.common.v1 import common_pb2
from parlor.devinfra.embedded import wait_for_port
from parlor.kit import client
from parlor.kit.auth import AuthSettings, issue_token
from parlor.services.takefour.game import game_pb, tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PLAYERS = ["ada", "bob", "cyd", "dee"]
TILES = tile_set("A6 E6 I3 O3 S3 T3 R3 N3", jokers=2)
RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class TakeFourProcess:
    """``parlor-platform --only takefour`` on a fixed port, killed with SIGKILL."""

    def __init__(self, port: int, dictionary: str) -> None:
        self.port = port
        self.env = dict(
            os.environ,
            PARLOR_GRPC_PORT=str(port),
            PARLOR_METRICS_PORT="0",
            PARLOR_LOG_FORMAT="text",
            PARLOR_LOG_LEVEL="WARNING",
            PARLOR_DICTIONARY_TARGET=dictionary,
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        platform = Path(sys.executable).with_name("parlor-platform")
        self.proc = subprocess.Popen(
            [str(platform), "--only", "takefour"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None


async def test_four_seats_acting_at_once_through_a_kill_lose_and_double_nothing(
    start_platform: Any, database_url: str
) -> None:
    game_id = uuid.uuid4().hex
    acked: dict[str, list[int]] = {}
    refused: list[str] = []
    retries = 0
    auth = AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])
    async with start_platform("dictionary") as dictionary:
        service = TakeFourProcess(restartable_port(), dictionary.target)
        target = f"127.0.0.1:{service.port}"
        service.start()
        try:
            assert await asyncio.to_thread(wait_for_port, "127.0.0.1", service.port, 60)
            channels = {
                p: client.channel(target, issue_token(auth, p, p.title(), ())) for p in PLAYERS
            }
            stubs = {p: pb_grpc.TakeFourServiceStub(ch) for p, ch in channels.items()}
            # four people sit together without matchmaking: a platform service seats them
            channels["service"] = client.channel(
                target,
                issue_token(auth, "service:tests", "tests", ("service",), audience=("takefour",)),
            )
            creator = pb_grpc.TakeFourServiceStub(channels["service"])

            async def call(method: Any) -> Any:
                """Retry while the service is away (the same request, so the same command id)."""
                nonlocal retries
                for _ in range(300):
                    try:
                        return await method()
                    except grpc.aio.AioRpcError as error:
                        if error.code() not in RETRIED:
                            raise
                        retries += 1
                        await asyncio.sleep(0.1)
                raise AssertionError("the service never came back")

            created = await call(
                lambda: creator.CreateGame(
                    pb.CreateGameRequest(
                        game_id=game_id,
                        seats=[common_pb2.Seat(player_id=p) for p in PLAYERS],
                        config=pb.Config(tiles=tiles_pb(TILES), target=100_000, max_rounds=1_000),
                        # untimed: the pictures compared below are the codec's, without clocks
                        time_control=common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_NONE),
                    ),
                    timeout=10,
                )
            )
            assert created.game.phase == pb.PHASE_PLAYING
            stop_at = time.monotonic() + 6.0

            async def player(seat: int) -> None:
                name = PLAYERS[seat]
                stub = stubs[name]
                rng = random.Random(seat)
                game = (await call(lambda: stub.GetGame(pb.GetGameRequest(game_id=game_id)))).game
                n = 0
                while time.monotonic() < stop_at and game.phase != pb.PHASE_OVER:
                    n += 1
                    cid = f"{name}-{n}"
                    seed = rng.random()  # a retry sends the very same request
                    try:
                        response = await call(
                            lambda g=game, c=cid, k=seed: next_action(
                                stub, g, seat, random.Random(k), c
                            )
                        )
                    except grpc.aio.AioRpcError:
                        refused.append(cid)
                        game = (
                            await call(lambda: stub.GetGame(pb.GetGameRequest(game_id=game_id)))
                        ).game
                        continue
                    game = response.game
                    if hasattr(response, "events"):
                        acked[cid] = [e.info.version for e in response.events]

            async def killer() -> None:
                await asyncio.sleep(2.0)
                service.kill()  # mid-game, calls in flight
                await asyncio.sleep(0.3)
                service.start()

            await asyncio.gather(killer(), *(player(i) for i in range(len(PLAYERS))))
            reported = {
                p: (
                    await call(lambda p=p: stubs[p].GetGame(pb.GetGameRequest(game_id=game_id)))
                ).game
                for p in PLAYERS
            }
            for ch in channels.values():
                await ch.close()
        finally:
            service.kill()

    stored, table = await stored_game(database_url, game_id)
    version = stored[-1].version
    print(
        f"\ntakefour kill: {len(acked)} commands acknowledged, {len(refused)} refused, "
        f"{retries} calls retried across the kill, {len(stored)} events, {table.game.round} rounds"
    )
    assert retries, "the kill happened while the players were calling"

    # The service reports, to every seat, the game its stored events replay to: scores too.
    for seat, p in enumerate(PLAYERS):
        assert reported[p] == game_pb(game_id, version, table, seat)
        assert list(reported[p].results) == list(game_pb(game_id, version, table, seat).results)

    # Nothing lost, nothing twice: every acknowledged command's events stored once.
    by_command: dict[str, list[int]] = defaultdict(list)
    for record in stored:
        by_command[record.metadata.command_id or ""].append(record.version)
    for cid, versions in acked.items():
        own = by_command.get(cid, [])
        assert own, f"acknowledged command {cid} has no stored events"
        assert own == list(range(own[0], own[0] + len(own))), f"{cid} stored once, in one append"
        assert set(own) <= set(versions), cid
    for cid in refused:
        assert cid not in by_command, f"refused command {cid} was stored"
    played = sorted(c for c in by_command if c.split("-")[0] in PLAYERS)
    assert played == sorted(c for c in acked if by_command.get(c))
    assert [r.version for r in stored] == list(range(1, version + 1))
