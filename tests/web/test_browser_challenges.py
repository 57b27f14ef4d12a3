"""Challenges in a real browser (issue 41): a challenge seen live and accepted, then a
rematch offered while the other player's page is closed, accepted later, seats rotated."""

from __future__ import annotations

from typing import Any

import pytest
from test_browser import SCREENSHOTS, browser, run_script

from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def test_a_challenge_is_accepted_live_and_a_rematch_waits_for_the_away_player(
    start_web: Any,
) -> None:
    browser()
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("challenges.mjs", web)
        stub = c4_grpc.Connect4x4ServiceStub(web.platform.service_channel())
        first = (await stub.GetGame(c4.GetGameRequest(game_id=report["first"]))).game
        rematch = (await stub.GetGame(c4.GetGameRequest(game_id=report["rematch"]))).game
    assert report["adaRematch"] == report["rematch"] != report["first"]
    assert "(rematch)" in report["offer"]
    assert report["bobId"] in {s.player_id for s in first.seats}
    seats = [s.player_id for s in first.seats]
    assert [s.player_id for s in rematch.seats] == seats[1:] + seats[:1]  # rotated
    assert list(first.winners)  # Ada resigned it: Bob won
    assert (SCREENSHOTS / "rematch.png").is_file()
