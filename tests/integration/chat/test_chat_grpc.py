"""ChatService over gRPC beside a real game, on two replicas sharing PostgreSQL and NATS.

Two players chat during a Connect 4x4 game; a spectator's kibitz never reaches a seat's
stream while the game runs (the seats are refused the spectators' room) and is read by them
after the end. A watch on one replica hears what is posted on the other, and a watch resumed
after its last version misses and repeats nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from parlor.chat.v1 import chat_pb2 as pb
from parlor.chat.v1 import chat_pb2_grpc as pb_grpc
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit.status import reason_of

pytestmark = pytest.mark.integration


@contextlib.asynccontextmanager
async def watch(
    stub: Any, room: pb.Room, after: int = 0
) -> AsyncIterator[asyncio.Queue[pb.WatchRoomResponse | grpc.aio.AioRpcError]]:
    items: asyncio.Queue[pb.WatchRoomResponse | grpc.aio.AioRpcError] = asyncio.Queue()
    call = stub.WatchRoom(pb.WatchRoomRequest(room=room, after_version=after))

    async def run() -> None:
        try:
            async for item in call:
                items.put_nowait(item)
        except grpc.aio.AioRpcError as error:
            items.put_nowait(error)

    task = asyncio.create_task(run())
    try:
        yield items
    finally:
        call.cancel()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def texts_until(items: asyncio.Queue[Any], last: str) -> list[str]:
    seen: list[str] = []
    while not seen or seen[-1] != last:
        item = await asyncio.wait_for(items.get(), 60)
        assert not isinstance(item, grpc.aio.AioRpcError), item
        if item.WhichOneof("item") == "message":
            seen.append(item.message.text)
    return seen


async def test_players_chat_kibitz_stays_away_from_seats_and_watches_cross_replicas(
    start_platform: Any,
) -> None:
    ada, bob, cyd = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "bob", "cyd"))
    async with (
        start_platform("connect4x4", "chat") as one,
        start_platform("chat") as two,
        one.service_channel() as service,
        one.channel(ada) as a1,
        two.channel(bob) as b2,
        one.channel(cyd) as c1,
        two.channel(cyd) as c2,
    ):
        made = await c4_grpc.Connect4x4ServiceStub(service).CreateGame(
            c4.CreateGameRequest(
                seats=[common_pb2.Seat(player_id=ada), common_pb2.Seat(player_id=bob)],
                config=c4.Config(players=2, first_seat=0),
            )
        )
        game_id = made.game.game_id
        players = pb.Room(kind=pb.ROOM_KIND_PLAYERS, game_type="connect4x4", game_id=game_id)
        kibitz = pb.Room(kind=pb.ROOM_KIND_SPECTATORS, game_type="connect4x4", game_id=game_id)
        ada_chat, bob_chat = pb_grpc.ChatServiceStub(a1), pb_grpc.ChatServiceStub(b2)
        cyd_one, cyd_two = pb_grpc.ChatServiceStub(c1), pb_grpc.ChatServiceStub(c2)

        async with watch(bob_chat, players) as bobs, watch(cyd_two, players) as cyds:
            await ada_chat.PostMessage(pb.PostMessageRequest(room=players, text="good luck"))
            await cyd_one.PostMessage(pb.PostMessageRequest(room=kibitz, text="ada, play d1"))
            await bob_chat.PostMessage(pb.PostMessageRequest(room=players, preset=pb.PRESET_THANKS))
            # posted on replica one, heard by watchers on replica two
            assert await texts_until(bobs, "Thanks") == ["good luck", "Thanks"]
            assert await texts_until(cyds, "Thanks") == ["good luck", "Thanks"]

        for stub in (ada_chat, bob_chat):
            async with watch(stub, kibitz) as seat:
                refused = await asyncio.wait_for(seat.get(), 60)
            assert isinstance(refused, grpc.aio.AioRpcError)
            assert refused.code() == grpc.StatusCode.PERMISSION_DENIED
            assert reason_of(refused) == "CHAT_SEAT_IN_KIBITZ"
            with pytest.raises(grpc.aio.AioRpcError) as write:
                await stub.PostMessage(pb.PostMessageRequest(room=kibitz, text="hello?"))
            assert reason_of(write.value) == "CHAT_SEAT_IN_KIBITZ"
        with pytest.raises(grpc.aio.AioRpcError) as outsider:
            await cyd_one.PostMessage(pb.PostMessageRequest(room=players, text="psst"))
        assert outsider.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert reason_of(outsider.value) == "CHAT_NOT_SEATED"

        # resumed after its last version: the rest, once each
        async with watch(cyd_two, players) as first:
            one_item = await asyncio.wait_for(first.get(), 60)
        assert not isinstance(one_item, grpc.aio.AioRpcError)
        async with watch(cyd_two, players, one_item.version) as rest:
            await ada_chat.PostMessage(pb.PostMessageRequest(room=players, text="gg"))
            assert await texts_until(rest, "gg") == ["Thanks", "gg"]

        await c4_grpc.Connect4x4ServiceStub(a1).Resign(c4.ResignRequest(game_id=game_id))
        async with watch(bob_chat, kibitz) as after:
            assert await texts_until(after, "ada, play d1") == ["ada, play d1"]
