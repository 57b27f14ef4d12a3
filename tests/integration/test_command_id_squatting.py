"""Command ids a client cannot abuse (issue 15, classes 5 and 6), on real PostgreSQL and NATS.

Class 5: the platform's own commands (bot moves, Take Four's rounds) carry ids in a
namespace (``parlor:...``) outside the client alphabet, so a player who sends the ids
the platform used to take (``bot-<version>``, ``round-<n>``) first freezes neither the
bot nor the round, and a player cannot send a ``parlor:`` id at all.

Class 6: the same command id with a different command is refused (``ALREADY_EXISTS
COMMAND_ID_REUSED``) and stores nothing; the same id with the same command still gets
its first outcome.
"""

from __future__ import annotations

import uuid
from typing import Any

import grpc
import pytest
from kits.takefour import tile_set

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.eventstore import PostgresEventStore
from parlor.kit.status import reason_of
from parlor.services.takefour.game import tiles_pb
from parlor.takefour.v1 import takefour_pb2 as tf_pb
from parlor.takefour.v1 import takefour_pb2_grpc as tf_grpc

pytestmark = pytest.mark.integration


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


async def stored_version(database_url: str, stream_id: str) -> int:
    store = PostgresEventStore(database_url)
    try:
        return await store.stream_version(stream_id)
    finally:
        await store.close()


async def test_a_player_sending_the_bots_old_command_id_first_does_not_freeze_the_bot(
    start_platform: Any, database_url: str
) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform, platform.channel("ada") as ch:
        ada = pb_grpc.Connect4x4ServiceStub(ch)
        created = await ada.CreateGame(
            pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bot:random"))
        )
        # The bot used to answer a move that leaves the game at version v with "bot-v".
        squat = f"bot-{created.game.version + 1}"
        reply = await ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="df", command_id=squat))
        assert reply.game.moves == 2  # the bot answered at once
        assert reply.game.turn == 0
        before = await stored_version(database_url, f"connect4x4-{game_id}")

        # The platform's namespace is closed to clients.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ada.PlayMove(
                pb.PlayMoveRequest(
                    game_id=game_id, move="af", command_id=f"parlor:bot-{reply.game.version}"
                )
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(refused.value) == "INVALID_COMMAND_ID"
        assert await stored_version(database_url, f"connect4x4-{game_id}") == before


async def test_a_player_creating_a_take_four_game_as_round_1_does_not_stall_the_round(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("dictionary") as dictionary:
        monkeypatch.setenv("PARLOR_DICTIONARY_TARGET", dictionary.target)
        # ada and bob sit together without matchmaking: a platform service seats them
        async with start_platform("takefour") as platform, platform.service_channel() as ch:
            created = await tf_grpc.TakeFourServiceStub(ch).CreateGame(
                tf_pb.CreateGameRequest(
                    game_id=game_id,
                    seats=seats("ada", "bob"),
                    config=tf_pb.Config(tiles=tiles_pb(tile_set("C1 A1 T1 S1 D1 O1 G1 E1"))),
                    command_id="round-1",  # the id the first deal used to carry
                )
            )
            assert created.game.phase == tf_pb.PHASE_PLAYING
            assert created.game.round == 1
            assert [s.in_hand for s in created.game.seats] == [4, 4]


async def test_a_command_id_reused_for_another_move_is_refused_and_stores_nothing(
    start_platform: Any, database_url: str
) -> None:
    game_id = uuid.uuid4().hex
    stream = f"connect4x4-{game_id}"
    async with (
        start_platform("connect4x4") as platform,
        platform.channel("ada") as a_ch,
        platform.channel("bob") as b_ch,
    ):
        ada = pb_grpc.Connect4x4ServiceStub(a_ch)
        bob = pb_grpc.Connect4x4ServiceStub(b_ch)
        async with platform.service_channel() as s_ch:  # ada and bob agreed elsewhere
            await pb_grpc.Connect4x4ServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob"))
            )
        first = await ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="df", command_id="m1"))
        await bob.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af", command_id="b1"))
        before = await stored_version(database_url, stream)

        # Ada's turn: "gf" is legal, but "m1" was her "df".
        with pytest.raises(grpc.aio.AioRpcError) as reused:
            await ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="gf", command_id="m1"))
        assert reused.value.code() == grpc.StatusCode.ALREADY_EXISTS
        assert reason_of(reused.value) == "COMMAND_ID_REUSED"
        # Not bob's turn: still the reuse that is named, not the turn.
        with pytest.raises(grpc.aio.AioRpcError) as reused:
            await bob.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="bf", command_id="b1"))
        assert reused.value.code() == grpc.StatusCode.ALREADY_EXISTS
        assert reason_of(reused.value) == "COMMAND_ID_REUSED"
        # Another RPC under the same id is another command too.
        with pytest.raises(grpc.aio.AioRpcError) as reused:
            await ada.Resign(pb.ResignRequest(game_id=game_id, command_id="m1"))
        assert reason_of(reused.value) == "COMMAND_ID_REUSED"
        assert await stored_version(database_url, stream) == before

        # The same id with the same command: the first outcome, nothing new.
        again = await ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="df", command_id="m1"))
        assert again.game.version == first.game.version
        assert await stored_version(database_url, stream) == before
