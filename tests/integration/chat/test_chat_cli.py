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


async def test_a_replay_with_chat_shows_each_message_between_the_moves_it_came_between(
    start_platform: Any,
) -> None:
    async with start_platform("connect4x4", "chat") as platform:
        game_id, ada, bob = await two_people_game(platform)
        room = players_room("connect4x4", game_id)
        async with (
            ParlorClient(platform.target, platform.token(ada)) as a,
            ParlorClient(platform.target, platform.token(bob)) as b,
        ):
            await b.chat.say(room, "before the move")
            played = await a.connect4x4.command("PlayMove", game_id=game_id, move="df")
            await b.chat.say(room, "after the move")
            await a.connect4x4.command("Resign", game_id=game_id)
        move = max(e.info.version for e in played.events)
        where = ["--target", platform.target, "--token", platform.token(ada)]
        args = ["replay", game_id, "--chat", "--pace", "0", "--game-type", "connect4x4"]
        out = await (terminal := await Terminal.start(*args, *where)).finish(b"")
    assert terminal.process.returncode == 0, out
    before, rule, after = (
        out.index(f"players: {bob}: before the move"),
        out.index(f"v{move}:"),
        out.index(f"players: {bob}: after the move"),
    )
    assert before < rule < after
    assert "spectators' room:" not in out  # the game has ended: Ada reads the kibitz too
