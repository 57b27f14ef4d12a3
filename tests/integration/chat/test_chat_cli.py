"""`/say` in `parlor play`: Ada's terminal shows Bob's message as it comes, and what she
types after `/say` reaches Bob's watch of the players' room, its case kept."""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

import pytest
from kits.chat import two_people_game
from kits.terminal import Terminal

from parlor.client import ParlorClient
from parlor.client.chat import players_room

pytestmark = pytest.mark.integration


async def test_say_in_parlor_play_reaches_the_other_seat_and_theirs_is_shown(
    start_platform: Any,
) -> None:
    async with start_platform("connect4x4", "chat") as platform:
        game_id, ada, bob = await two_people_game(platform)
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


async def test_an_export_with_chat_adds_the_rooms_the_player_may_read(start_platform: Any) -> None:
    async with start_platform("connect4x4", "chat") as platform:
        game_id, ada, bob = await two_people_game(platform)
        async with ParlorClient(platform.target, platform.token(bob)) as parlor:
            await parlor.chat.say(players_room("connect4x4", game_id), "Good luck, Ada")
        where = ["--target", platform.target, "--token", platform.token(ada)]
        args = ["export", game_id, "--format", "text", "--chat", "--game-type", "connect4x4"]
        terminal = await Terminal.start(*args, *where)
        out = await terminal.finish(b"")
    assert terminal.process.returncode == 0, out
    players = out.index("# players' room")
    assert f"{bob}: Good luck, Ada" in out[players:]
    # the game runs: its kibitz is not Ada's to read, and the export says so
    assert "# spectators' room:" in out
    assert "a seat may not read the spectators' room while its game runs" in out
