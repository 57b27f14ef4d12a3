"""A Take Four command names the round it was meant for: another round refuses it.

Eight tiles for two players: the start deal empties the bag, so Ada's Done (honor mode,
unchecked) scores round 1 and round 2 is dealt at once. A command still naming round 1 is
then refused with ``ROUND_CHANGED`` (and changes nothing); naming round 2, or no round
(old clients), it goes through. Played through ``parlor-client``, as a client writer would.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kits.takefour import tile_set
from takefour_actions import game_of_ada_and_bob

from parlor.client import FailedPrecondition, ParlorClient
from parlor.services.takefour.game import tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb

pytestmark = pytest.mark.integration


async def test_a_command_meant_for_a_round_that_is_over_is_refused(takefour: Any) -> None:
    game_id = uuid.uuid4().hex
    config = pb.Config(tiles=tiles_pb(tile_set("E8")), max_rounds=3)
    await game_of_ada_and_bob(takefour, game_id, config)
    async with ParlorClient(takefour.target, takefour.token("ada")) as parlor:
        games = parlor.takefour
        seen = await games.get_game(game_id)
        assert (seen.round, seen.bag_count) == (1, 0)
        first_tile = seen.seats[0].hand[0].id
        done_id = uuid.uuid4().hex
        done = await games.command("CallDone", game_id=game_id, round=1, command_id=done_id)
        assert done.game.round == 2  # scored, and the next round dealt in the same call

        # Typed while round 1 was on the screen: refused, nothing appended.
        with pytest.raises(FailedPrecondition) as refused:
            await games.command("PlaceTile", game_id=game_id, tile=first_tile, round=1)
        assert refused.value.reason == "ROUND_CHANGED"
        assert refused.value.metadata == {"round": "2", "meant_for": "1"}
        with pytest.raises(FailedPrecondition, match="ROUND_CHANGED"):
            await games.command("AgreeToDeal", game_id=game_id, round=1)
        assert (await games.get_game(game_id)).version == done.game.version

        # The same Done sent again (a lost reply) is the first answer, not a refusal.
        again = await games.command("CallDone", game_id=game_id, round=1, command_id=done_id)
        assert again.game.version >= done.game.version

        now = await games.get_game(game_id)
        tile = now.seats[0].hand[0].id
        placed = await games.command("PlaceTile", game_id=game_id, tile=tile, x=0, y=0, round=2)
        assert placed.game.seats[0].on_grid == 1
        tile = placed.game.seats[0].hand[0].id
        unchecked = await games.command("PlaceTile", game_id=game_id, tile=tile, x=1, y=0)
        assert unchecked.game.seats[0].on_grid == 2  # round 0: no check, as for old clients
