"""``WatchPlayer`` from position 0 starts with the current state: the pending challenges,
and every game waiting for the caller now (its latest "your turn", while the game is still
at that version). A client that lost its position (a bot's fresh start) is told of every
turn it owes, not only of the turns noted after it connects."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit import client

pytestmark = pytest.mark.integration

MINUTE = common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=600)


async def first_turns(platform: Any, player: str) -> dict[str, int]:
    """The games (id -> version) the first message of a fresh watch says wait for ``player``."""
    async with platform.channel(player) as chan:
        watch = ch_grpc.ChallengeServiceStub(chan).WatchPlayer(ch.WatchPlayerRequest(after=0))
        async for message in watch:
            turns = {
                n.game_id: n.game_version
                for n in message.notices
                if n.kind == ch.NOTICE_KIND_YOUR_TURN
            }
            watch.cancel()
            return turns
    raise AssertionError("the watch ended before its first message")


async def until_first_turns(
    platform: Any, player: str, expected: dict[str, int], seconds: float = 30.0
) -> None:
    """The turn feed notes turns a moment after the move: wait until a fresh watch says them."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        turns = await first_turns(platform, player)
        if {g: turns.get(g) for g in expected} == expected:
            return
        assert asyncio.get_running_loop().time() < deadline, (turns, expected)
        await asyncio.sleep(0.2)


async def test_a_fresh_watch_starts_with_every_game_waiting_for_the_caller(
    start_platform: Any,
) -> None:
    tag = secrets.token_hex(6)
    ann, bob = f"guest-ann{tag}", f"guest-bob{tag}"
    async with start_platform("matchmaking", "connect4x4") as platform:
        service = client.channel(
            platform.target, platform.token("service:matchmaking", roles=("service",))
        )
        try:
            maker = c4_grpc.Connect4x4ServiceStub(service)
            games = {p: c4_grpc.Connect4x4ServiceStub(platform.channel(p)) for p in (ann, bob)}
            made = []
            for _ in range(2):
                created = await maker.CreateGame(
                    c4.CreateGameRequest(
                        seats=[common_pb2.Seat(player_id=ann), common_pb2.Seat(player_id=bob)],
                        time_control=MINUTE,
                    )
                )
                made.append(created.game.game_id)
            first, second = made
            moved = await games[ann].PlayMove(c4.PlayMoveRequest(game_id=first, move="df"))
            # bob owes a move in the first game, ann the first move of the second
            await until_first_turns(platform, bob, {first: moved.game.version})
            untouched = await games[ann].GetGame(c4.GetGameRequest(game_id=second))
            await until_first_turns(platform, ann, {second: untouched.game.version})
            assert first not in await first_turns(platform, ann)
            later = await games[bob].PlayMove(c4.PlayMoveRequest(game_id=first, move="db"))
            await until_first_turns(platform, ann, {first: later.game.version})
            bob_turns = await first_turns(platform, bob)
            assert first not in bob_turns  # he has moved: that turn is not owed any more
        finally:
            await service.close()
