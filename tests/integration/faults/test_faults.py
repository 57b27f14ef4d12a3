"""Faults in the middle of games: NATS, PostgreSQL and a game service go away and come back.

Each test runs its own private server (embedded PostgreSQL or nats-server), so the
machine's shared servers are never disturbed. Clients see retriable errors
(UNAVAILABLE), never corrupted state; no acknowledged move is lost; nothing is
published twice; the services recover without being restarted themselves.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import nats
import pytest
from kits.ports import restartable_port

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.devinfra.embedded import EmbeddedPostgres, NatsServer
from parlor.eventstore import migrate

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# Ada and Bob fill columns a..g on the front side, alternating, so nobody makes a line.
MOVES = [
    ("ada", "af"),
    ("bob", "bf"),
    ("ada", "cf"),
    ("bob", "df"),
    ("ada", "ef"),
    ("bob", "ff"),
    ("ada", "gf"),
    ("bob", "af"),
    ("ada", "bf"),
    ("bob", "cf"),
]


def seats() -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")]


async def create(platform: Any, game_id: str) -> None:
    """Ada and bob agreed to play elsewhere: a platform service seats them."""
    async with platform.service_channel() as ch:
        await pb_grpc.Connect4x4ServiceStub(ch).CreateGame(
            pb.CreateGameRequest(game_id=game_id, seats=seats())
        )


async def play(stubs: dict[str, pb_grpc.Connect4x4ServiceStub], game_id: str, i: int) -> pb.Game:
    who, move = MOVES[i]
    reply = await stubs[who].PlayMove(
        pb.PlayMoveRequest(game_id=game_id, move=move, command_id=f"move-{i}"), timeout=20
    )
    return reply.game


async def published_versions(url: str, subject: str, stream: str, want: int) -> list[int]:
    """Every message on ``subject`` in the stream, waiting up to 20 s for ``want`` of them."""
    nc = await nats.connect(url)
    try:
        sub = await nc.jetstream().subscribe(subject, stream=stream, ordered_consumer=True)
        seen: list[int] = []
        deadline = time.monotonic() + 20
        while len(seen) < want and time.monotonic() < deadline:
            try:
                msg = await sub.next_msg(timeout=1)
            except nats.errors.TimeoutError:
                continue
            seen.append(int(msg.headers["Parlor-Version"]))
        await asyncio.sleep(0.5)
        while True:  # anything beyond what was wanted is a duplicate
            try:
                msg = await sub.next_msg(timeout=0.5)
            except nats.errors.TimeoutError:
                break
            seen.append(int(msg.headers["Parlor-Version"]))
        return seen
    finally:
        await nc.close()


async def test_moves_go_on_while_nats_is_down_and_are_published_once_when_it_returns(
    start_platform, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, subject_prefix: str
) -> None:
    server = NatsServer(tmp_path / "nats", port=restartable_port())
    server.start()
    monkeypatch.setenv("PARLOR_NATS_URL", server.url)
    stream = f"FAULTS_{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("PARLOR_NATS_STREAM", stream)
    game_id = uuid.uuid4().hex
    subject = f"{subject_prefix}.connect4x4.{game_id}.*"
    try:
        async with start_platform("connect4x4") as platform:
            async with platform.channel("ada") as a, platform.channel("bob") as b:
                stubs = {
                    "ada": pb_grpc.Connect4x4ServiceStub(a),
                    "bob": pb_grpc.Connect4x4ServiceStub(b),
                }
                await create(platform, game_id)
                for i in range(3):
                    await play(stubs, game_id, i)
                assert await published_versions(server.url, subject, stream, 5) == [1, 2, 3, 4, 5]

                server.stop()
                for i in range(3, 8):  # NATS is down: moves still succeed
                    game = await play(stubs, game_id, i)
                assert game.version == 10

                server.start()  # same port, same JetStream store
                versions = await published_versions(server.url, subject, stream, 10)
                assert versions == list(range(1, 11)), "every event exactly once, in order"
    finally:
        server.stop()


async def test_a_postgres_restart_gives_unavailable_then_the_game_goes_on(
    start_platform, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    postgres = EmbeddedPostgres(tmp_path / "pg")
    url = postgres.start()
    try:
        await migrate(url)
        monkeypatch.setenv("PARLOR_DATABASE_URL", url)
        game_id = uuid.uuid4().hex
        async with start_platform("connect4x4") as platform:
            async with platform.channel("ada") as a, platform.channel("bob") as b:
                stubs = {
                    "ada": pb_grpc.Connect4x4ServiceStub(a),
                    "bob": pb_grpc.Connect4x4ServiceStub(b),
                }
                await create(platform, game_id)
                for i in range(2):
                    await play(stubs, game_id, i)

                postgres.stop()
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await play(stubs, game_id, 2)
                assert caught.value.code() == grpc.StatusCode.UNAVAILABLE

                postgres.start()
                game = None
                for _ in range(40):  # the client retries the same command until it lands
                    try:
                        game = await play(stubs, game_id, 2)
                        break
                    except grpc.aio.AioRpcError as error:
                        assert error.code() == grpc.StatusCode.UNAVAILABLE
                        await asyncio.sleep(0.25)
                assert game is not None
                for i in range(3, 6):
                    game = await play(stubs, game_id, i)
                history = await stubs["bob"].GetHistory(pb.GetHistoryRequest(game_id=game_id))
                assert [e.info.version for e in history.events] == list(range(1, 9))
                assert [e.notation for e in history.events if e.notation] == [
                    m for _, m in MOVES[:6]
                ]
                assert game.moves == 6
    finally:
        postgres.stop()


async def test_a_game_service_restart_loses_nothing(start_platform) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as first:
        async with first.channel("ada") as a, first.channel("bob") as b:
            stubs = {
                "ada": pb_grpc.Connect4x4ServiceStub(a),
                "bob": pb_grpc.Connect4x4ServiceStub(b),
            }
            await create(first, game_id)
            for i in range(4):
                await play(stubs, game_id, i)
            target = first.target
    async with first.channel("ada") as a:  # the service is gone: retriable, not corrupt
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await pb_grpc.Connect4x4ServiceStub(a).GetGame(
                pb.GetGameRequest(game_id=game_id), timeout=5
            )
        assert caught.value.code() in (
            grpc.StatusCode.UNAVAILABLE,
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
    assert target
    async with start_platform("connect4x4") as second:
        async with second.channel("ada") as a, second.channel("bob") as b:
            stubs = {
                "ada": pb_grpc.Connect4x4ServiceStub(a),
                "bob": pb_grpc.Connect4x4ServiceStub(b),
            }
            again = await play(stubs, game_id, 3)  # a retry after the restart: the first answer
            assert again.moves == 4
            for i in range(4, 8):
                game = await play(stubs, game_id, i)
            assert game.moves == 8
            assert game.version == 10
