"""Chat: post to a room (the lobby's, or a game's players' or spectators' room) and follow it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from parlor.chat.v1 import chat_pb2 as pb
from parlor.chat.v1 import chat_pb2_grpc as pb_grpc
from parlor.client.streams import resumed

if TYPE_CHECKING:
    from parlor.client.client import ParlorClient

LOBBY = pb.Room(kind=pb.ROOM_KIND_LOBBY)


def players_room(game_type: str, game_id: str, invite: str = "") -> pb.Room:
    """A game's players' room (its seats write there)."""
    return pb.Room(kind=pb.ROOM_KIND_PLAYERS, game_type=game_type, game_id=game_id, invite=invite)


def spectators_room(game_type: str, game_id: str, invite: str = "") -> pb.Room:
    """A game's spectators' room (kibitz: never its seats' while it runs)."""
    return pb.Room(
        kind=pb.ROOM_KIND_SPECTATORS, game_type=game_type, game_id=game_id, invite=invite
    )


class ChatClient:
    """``parlor.chat.v1.ChatService`` (docs/chat.md)."""

    def __init__(self, client: ParlorClient) -> None:
        self.client = client
        self.stub = pb_grpc.ChatServiceStub(client.channel)

    async def say(
        self, room: pb.Room, text: str = "", preset: pb.Preset.ValueType = pb.PRESET_UNSPECIFIED
    ) -> pb.ChatMessage:
        """Post ``text`` (or a ``preset``); retried safely under one command id."""
        request = pb.PostMessageRequest(
            room=room, text=text, preset=preset, command_id=uuid.uuid4().hex
        )
        return (await self.client.call(self.stub.PostMessage, request)).message

    async def history(self, room: pb.Room) -> list[Any]:
        """Every item of the room the caller may see now (``WatchRoomResponse``), page by page."""
        items: list[Any] = []
        after = 0
        while True:
            request = pb.GetRoomHistoryRequest(room=room, after_version=after)
            page = await self.client.call(self.stub.GetRoomHistory, request, idempotent=True)
            items.extend(page.items)
            if page.version == after:
                return items
            after = page.version

    async def watch(self, room: pb.Room, after_version: int = 0) -> AsyncGenerator[Any, None]:
        """The room's items (``WatchRoomResponse``) from ``after_version`` on, for good:
        reopened after an idle close or a broken connection, from the last version seen."""
        seen = after_version

        def open_stream() -> Any:
            request = pb.WatchRoomRequest(room=room, after_version=seen)
            return self.stub.WatchRoom(request, metadata=self.client.metadata, timeout=None)

        async with aclosing(resumed(open_stream, self.client.retry)) as items:
            async for item in items:
                seen = item.version
                yield item
