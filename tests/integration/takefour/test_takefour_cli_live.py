"""`parlor play takefour` redraws as the others play, not only when the player types.

Ada's terminal waits at the prompt (her stdin is a pipe nobody writes to yet) while Bob
places a tile and then calls Done (eight tiles: the bag is empty from the start, and an
honor-mode Done is not checked), which scores round 1 and deals round 2. Her screen shows
both as they happen; the command she then types names round 2, the round on her screen,
and goes through.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kits.takefour import tile_set
from kits.terminal import Terminal
from takefour_actions import game_of_ada_and_bob

from parlor.client import ParlorClient
from parlor.services.takefour.game import tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb

pytestmark = pytest.mark.integration


async def test_the_screen_follows_the_others_moves_while_the_player_thinks(takefour: Any) -> None:
    game_id = uuid.uuid4().hex
    config = pb.Config(tiles=tiles_pb(tile_set("E8")), max_rounds=3)
    await game_of_ada_and_bob(takefour, game_id, config)
    where = ["--target", takefour.target, "--token", takefour.token("ada")]
    # A process of its own, its stdin a pipe: the prompt really waits for a line.
    ada = await Terminal.start("play", "takefour", "--join", game_id, *where)
    try:
        await ada.until("your move (")  # Ada's screen is drawn and waits for her
        async with ParlorClient(takefour.target, takefour.token("bob")) as bob:
            seen = await bob.takefour.get_game(game_id)
            tile = seen.seats[1].hand[0].id
            await bob.takefour.command("PlaceTile", game_id=game_id, tile=tile, round=1)
            await ada.until("Bob's grid: 1 tile")
            done = await bob.takefour.command("CallDone", game_id=game_id, round=1)
            assert done.game.round == 2
            await ada.until("Take Four, round 2: playing")
    finally:
        out = await ada.finish(b"place e 0,0\nquit\n")
    assert ada.process.returncode == 0, out
    before = out.index("Bob placed a tile")  # drawn while Ada had typed nothing
    assert "Bob's grid: 1 tile, hand: 3 tiles (hidden)" in out[before:]
    assert "Take Four, round 2: playing" in out[before:]
    assert "played: Ada placed E" in out
    assert "ROUND_CHANGED" not in out
