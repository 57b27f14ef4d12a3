"""A game the player left while only bots play on still counts among their open games: it
costs the platform until it ends, so leaving buys no room for one more. One they left while
another person plays on frees the slot, as before (the others could hold it for ever)."""

from __future__ import annotations

import secrets
from typing import Any

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


@pytest.fixture
def bot_pause_seconds(monkeypatch: pytest.MonkeyPatch) -> str:
    """The cap at one game, and bots slow enough that the game left to them is not over."""
    monkeypatch.setenv("PARLOR_MAX_OPEN_GAMES_PER_PLAYER", "1")
    return "1"


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p) for p in players]


def request(*players: str) -> pb.CreateGameRequest:
    return pb.CreateGameRequest(
        seats=seats(*players), config=pb.Config(target=1_000_000, max_rounds=1000)
    )


async def test_a_game_left_to_bots_still_counts_and_one_left_to_people_does_not(
    takefour: Any,
) -> None:
    ada = f"ada-{secrets.token_hex(4)}"
    bob = f"bob-{secrets.token_hex(4)}"
    async with takefour.channel(ada) as a_ch:
        player = pb_grpc.TakeFourServiceStub(a_ch)
        to_bots = await player.CreateGame(request(ada, "bot:easy", "bot:easy"))
        await player.Leave(pb.LeaveRequest(game_id=to_bots.game.game_id))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await player.CreateGame(request(ada, "bot:easy"))
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(refused.value) == "TOO_MANY_OPEN_GAMES"
        listed = await player.ListGames(pb.ListGamesRequest(player_id=ada, in_progress_only=True))
        assert [g.game_id for g in listed.games] == [to_bots.game.game_id]

    # Left while another person plays on: the slot is free again.
    carol = f"carol-{secrets.token_hex(4)}"
    async with (
        takefour.channel(carol) as c_ch,
        client.channel(takefour.target, takefour.token("matchmaking", ("service",))) as s_ch,
    ):
        player = pb_grpc.TakeFourServiceStub(c_ch)
        service = pb_grpc.TakeFourServiceStub(s_ch)
        with_bob = await service.CreateGame(request(carol, bob, "bot:easy"))
        await player.Leave(pb.LeaveRequest(game_id=with_bob.game.game_id))
        await player.CreateGame(request(carol, "bot:easy"))
