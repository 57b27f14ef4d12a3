"""Two people: one plays from the terminal (`parlor play --join`), waiting on the watch
stream while the other moves over gRPC; a third follows it all with `parlor watch`."""

from __future__ import annotations

import asyncio
import re
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from parlor.cli.main import app
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


async def cli(*args: str, stdin: str = "") -> Result:
    return await asyncio.to_thread(
        CliRunner().invoke, app, list(args), input=stdin, catch_exceptions=False
    )


async def parlor(*args: str) -> tuple[int, str]:
    """The installed console script in its own process (CliRunner runs one at a time)."""
    process = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "parlor"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode()


async def test_a_player_joins_from_the_terminal_and_a_spectator_watches(start_platform) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform:
        async with platform.channel("bob") as channel:
            bob = pb_grpc.Connect4x4ServiceStub(channel)
            seats = [
                common_pb2.Seat(player_id="bob", display_name="Bob"),
                common_pb2.Seat(player_id="ada", display_name="Ada"),
            ]
            async with platform.service_channel() as s_ch:  # bob and ada agreed elsewhere
                await pb_grpc.Connect4x4ServiceStub(s_ch).CreateGame(
                    pb.CreateGameRequest(game_id=game_id, seats=seats)
                )
            target = ["--target", platform.target]
            watcher = asyncio.create_task(
                parlor("watch", game_id, *target, "--token", platform.token("carol"))
            )
            player = asyncio.create_task(
                cli(
                    "play",
                    "connect4x4",
                    "--join",
                    game_id,
                    *target,
                    "--token",
                    platform.token("ada"),
                    stdin="ab\n",
                )
            )
            await asyncio.sleep(0.5)
            await bob.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af"))
            for _ in range(200):  # Ada's terminal answers once the watch stream wakes it
                game = (await bob.GetGame(pb.GetGameRequest(game_id=game_id))).game
                if game.moves == 2:
                    break
                await asyncio.sleep(0.05)
            assert game.moves == 2
            await bob.Resign(pb.ResignRequest(game_id=game_id))
            ada, (watched, carol) = await asyncio.wait_for(asyncio.gather(player, watcher), 30)

    assert ada.exit_code == 0, ada.output
    assert "waiting for the other players" in ada.output
    assert "played: Y Ada ab" in ada.output
    assert "game over: Y Ada wins (RESIGNATION)" in ada.output

    assert watched == 0, carol
    assert re.findall(r"─ v(\d+):", carol) == [str(v) for v in range(1, game.version + 4)]
    assert "R Bob af" in carol
    assert "game over: Y Ada wins (RESIGNATION)" in carol
