"""`/say` in `parlor play`: Ada's terminal shows Bob's message as it comes, and what she
types after `/say` reaches Bob's watch of the players' room, its case kept."""

from __future__ import annotations

import secrets
from contextlib import aclosing
from typing import Any

import pytest
from kits.terminal import Terminal

from parlor.client import ParlorClient
from parlor.client.chat import players_room
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc

pytestmark = pytest.mark.integration


async def test_say_in_parlor_play_reaches_the_other_seat_and_theirs_is_shown(
    start_platform: Any,
) -> None:
    ada, bob = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "bob"))
    async with start_platform("connect4x4", "chat") as platform, platform.service_channel() as s:
        made = await c4_grpc.Connect4x4ServiceStub(s).CreateGame(
            c4.CreateGameRequest(
                seats=[common_pb2.Seat(player_id=ada), common_pb2.Seat(player_id=bob)],
                config=c4.Config(players=2, first_seat=0),
            )
        )
        game_id = made.game.game_id
        where = ["--target", platform.target, "--token", platform.token(ada)]
        terminal = await Terminal.start("play", "connect4x4", "--join", game_id, *where)
        room = players_room("connect4x4", game_id)
        try:
            await terminal.until("/say <text>)", 60)
            async with ParlorClient(platform.target, platform.token(bob)) as parlor:
                await parlor.chat.say(room, "Good luck, Ada")
                await terminal.until("Good luck, Ada", 60)
                await terminal.type("/say Thanks Bob!")
                async with aclosing(parlor.chat.watch(room)) as items:
                    async for item in items:
                        if item.message.author == ada:
                            assert item.message.text == "Thanks Bob!"
                            break
        finally:
            out = await terminal.finish(b"quit\n")
        assert terminal.process.returncode == 0, out
        assert "you: Thanks Bob!" in out
