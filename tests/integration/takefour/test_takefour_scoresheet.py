"""Scoring keeps a Take Four game's scoresheet round by round."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.kit import client
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


async def test_the_scoresheet_of_a_take_four_game_lists_every_round(
    takefour: Any, start_platform: Any
) -> None:
    game_id = uuid.uuid4().hex
    seats = [common_pb2.Seat(player_id="bot:easy"), common_pb2.Seat(player_id="bot:medium")]
    async with start_platform("scoring") as scoring:
        token = takefour.token("matchmaking", ("service",))
        async with (
            client.channel(takefour.target, token) as s_ch,
            takefour.channel("cy") as c_ch,
            scoring.channel("cy") as sc_ch,
        ):
            await pb_grpc.TakeFourServiceStub(s_ch).CreateGame(
                # a target no round reaches: the game plays both rounds (a bot's round could
                # otherwise reach the default 100 and end the game after one)
                pb.CreateGameRequest(
                    game_id=game_id, seats=seats, config=pb.Config(max_rounds=2, target=1_000_000)
                )
            )
            games = pb_grpc.TakeFourServiceStub(c_ch)

            async def until_over() -> pb.Game:
                async for item in games.WatchGame(pb.WatchGameRequest(game_id=game_id)):
                    if item.event.WhichOneof("body") == "game_finished":
                        break
                return (await games.GetGame(pb.GetGameRequest(game_id=game_id))).game

            final = await asyncio.wait_for(until_over(), 240)
            sheets = sc_grpc.ScoringServiceStub(sc_ch)
            sheet = None
            # scoring consumes GameFinished from NATS: at once, or seconds later on a busy machine
            deadline = asyncio.get_running_loop().time() + 60
            while asyncio.get_running_loop().time() < deadline:
                try:
                    request = sc.GetScoresheetRequest(game_type="takefour", game_id=game_id)
                    sheet = (await sheets.GetScoresheet(request)).scoresheet
                    break
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.NOT_FOUND
                    await asyncio.sleep(0.1)
    assert sheet is not None
    assert [r.round for r in sheet.rounds] == [1, 2]
    assert list(sheet.rounds[-1].totals) == [s.total for s in final.seats]
    assert [sum(r.scores[i] for r in sheet.rounds) for i in range(2)] == list(
        sheet.rounds[-1].totals
    )
    assert [r.score for r in sheet.results] == [s.total for s in final.seats]
