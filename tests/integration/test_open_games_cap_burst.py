"""The open-games cap holds under a burst: many ``CreateGame`` at once, from one player, on
several connections and across two servers sharing one database (each with pools and a
directory of its own, as two processes have), create exactly
the cap's number of games; the rest are refused ``TOO_MANY_OPEN_GAMES``.

The count and the create are one claim per player (``parlor.admission.opengames``), taken
where the game is created, not a read of a directory caught up a second ago.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from typing import Any

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.kit.status import reason_of

pytestmark = pytest.mark.integration

CAP = 20
BURST = 150


@pytest.fixture
def capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLOR_MAX_OPEN_GAMES_PER_PLAYER", str(CAP))


def create(player: str) -> pb.CreateGameRequest:
    return pb.CreateGameRequest(
        seats=[common_pb2.Seat(player_id=player), common_pb2.Seat(player_id="bot:random")],
        config=pb.Config(players=2, first_seat=0),  # the player to move: the game waits
    )


async def burst(targets: list[str], token: str, player: str) -> Counter[str]:
    """``BURST`` creates at once, spread over 4 connections to each of ``targets``."""
    channels = [client.channel(t, token) for t in targets for _ in range(4)]
    stubs = [pb_grpc.Connect4x4ServiceStub(c) for c in channels]

    async def one(i: int) -> str:
        try:
            await stubs[i % len(stubs)].CreateGame(create(player), timeout=60)
        except grpc.aio.AioRpcError as exc:
            return f"{exc.code().name} {reason_of(exc)}"
        return "created"

    try:
        return Counter(await asyncio.gather(*(one(i) for i in range(BURST))))
    finally:
        for channel in channels:
            await channel.close()


async def test_a_burst_of_creates_on_four_connections_makes_exactly_the_cap(
    capped: None, start_platform: Any
) -> None:
    player = f"burst-{secrets.token_hex(6)}"
    async with start_platform("connect4x4") as platform:
        outcomes = await burst([platform.target], platform.token(player), player)
        assert outcomes == {
            "created": CAP,
            "RESOURCE_EXHAUSTED TOO_MANY_OPEN_GAMES": BURST - CAP,
        }
        async with platform.channel(player) as channel:
            listed = await pb_grpc.Connect4x4ServiceStub(channel).ListGames(
                pb.ListGamesRequest(player_id=player, in_progress_only=True, page_size=100)
            )
        assert len(listed.games) == CAP


async def test_a_burst_across_two_servers_sharing_a_database_makes_exactly_the_cap(
    capped: None, start_platform: Any
) -> None:
    player = f"burst-{secrets.token_hex(6)}"
    async with start_platform("connect4x4") as one, start_platform("connect4x4") as two:
        outcomes = await burst([one.target, two.target], one.token(player), player)
        assert outcomes == {
            "created": CAP,
            "RESOURCE_EXHAUSTED TOO_MANY_OPEN_GAMES": BURST - CAP,
        }


async def test_many_players_creating_at_once_are_all_served(
    capped: None, start_platform: Any
) -> None:
    """Claims of different players run side by side, holding at most half the transaction
    pool between them: 80 players' creates at once all succeed, none UNAVAILABLE."""
    async with start_platform("connect4x4") as platform:
        players = [f"many-{secrets.token_hex(6)}" for _ in range(80)]
        channels = [platform.channel(p) for p in players]
        try:

            async def one(i: int) -> str:
                stub = pb_grpc.Connect4x4ServiceStub(channels[i])
                try:
                    await stub.CreateGame(create(players[i]), timeout=60)
                except grpc.aio.AioRpcError as exc:
                    return f"{exc.code().name} {reason_of(exc)}"
                return "created"

            outcomes = Counter(await asyncio.gather(*(one(i) for i in range(len(players)))))
        finally:
            for channel in channels:
                await channel.close()
        assert outcomes == {"created": len(players)}
