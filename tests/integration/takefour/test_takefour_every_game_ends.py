"""Every Take Four game ends, over gRPC (issue 37; docs/bounds.md, "Every game ends"): a
target without a round limit that would take for ever is refused, and the bots of a table
its person left leave it (after ``PARLOR_TAKEFOUR_BOT_ALONE_SECONDS``, 1 s here), which
ends the game. On main the bots of such a table played on at full speed for days."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.kit.status import reason_of
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


@pytest.fixture
def bot_pause_seconds(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PARLOR_TAKEFOUR_BOT_ALONE_SECONDS", "1")
    return "0.2"


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p) for p in players]


async def test_a_target_that_would_take_for_ever_is_refused(takefour: Any) -> None:
    async with takefour.channel("ada") as ch:
        stub = pb_grpc.TakeFourServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.CreateGame(
                pb.CreateGameRequest(
                    seats=seats("ada", "bot:hard"), config=pb.Config(target=1_000_000)
                )
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(refused.value) == "GAME_UNBOUNDED"
        made = await stub.CreateGame(
            pb.CreateGameRequest(
                seats=seats("ada", "bot:hard"), config=pb.Config(target=1_000_000, max_rounds=3)
            )
        )
        await stub.Leave(pb.LeaveRequest(game_id=made.game.game_id))


async def test_the_bots_of_a_table_its_person_left_end_the_game(takefour: Any) -> None:
    async with takefour.channel("ada") as ch:
        stub = pb_grpc.TakeFourServiceStub(ch)
        made = await stub.CreateGame(
            pb.CreateGameRequest(
                seats=seats("ada", "bot:easy", "bot:easy", "bot:easy"),
                config=pb.Config(target=1_000),
            )
        )
        game_id = made.game.game_id
        await stub.Leave(pb.LeaveRequest(game_id=game_id))
        for _ in range(150):
            game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
            if game.phase == pb.PHASE_OVER:
                break
            await asyncio.sleep(0.1)
        assert game.phase == pb.PHASE_OVER  # within seconds, not days
