"""ChatService: rooms checked against the store's facts, watched across replicas."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from parlor.chat.v1 import chat_pb2 as pb
from parlor.chat.v1 import chat_pb2_grpc
from parlor.chatrules import (
    MODERATION,
    PRESETS,
    Close,
    Delete,
    GameFacts,
    Kind,
    MessageDeleted,
    MessagePosted,
    MessageReported,
    PlayerTimedOut,
    Post,
    Prefs,
    Reading,
    Report,
    Room,
    RoomClosed,
    RoomEvent,
    SetBlock,
    SetChat,
    SetMute,
    TimeOut,
    Viewer,
    checked_text,
    may_moderate,
    may_write,
    reading,
)
from parlor.core.errors import FailedPrecondition, InvalidArgument
from parlor.eventstore import RecordedEvent
from parlor.gametypes.ids import check_command_id
from parlor.kit import auth
from parlor.kit.auth import Identity
from parlor.kit.fingerprint import request_fingerprint
from parlor.runtime.bells import GameBells
from parlor.services.chat.facts import Games
from parlor.services.chat.rooms import RoomId, Rooms
from parlor.services.chat.settings import ChatSettings

MODERATOR_ROLES = frozenset({"moderator", "admin"})
"""Token roles that moderate chat: ``moderator`` (granted by operators) and ``admin``."""
KINDS = {
    pb.ROOM_KIND_LOBBY: Kind.LOBBY,
    pb.ROOM_KIND_PLAYERS: Kind.PLAYERS,
    pb.ROOM_KIND_SPECTATORS: Kind.SPECTATORS,
}
PRESET_NAMES = {
    pb.PRESET_GOOD_GAME: "GOOD_GAME",
    pb.PRESET_THANKS: "THANKS",
    pb.PRESET_GOOD_LUCK: "GOOD_LUCK",
}
WAIT_SECONDS = 5.0
"""How long a watcher waits on its room's bell before reading the store again anyway."""
HELD_POLL_SECONDS = 2.0
"""How often a watcher held back until a game's end asks whether it has ended."""
MODERATION_LOG = 500
READ_AT_ONCE = 256
"""The most of a room's events a watcher reads from the store at a time."""
HISTORY_PAGE = 100
"""GetRoomHistory's page when the request names no limit."""


@dataclass(frozen=True)
class Batch:
    items: list[pb.WatchRoomResponse]
    position: int
    """The version of the last event read and passed (shown or not)."""
    wait: float


def viewer_of(identity: Identity) -> Viewer:
    return Viewer(
        identity.player_id, bool(MODERATOR_ROLES & set(identity.roles)), identity.is_service
    )


def timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def message_of(event: MessagePosted, version: int, room: Room) -> pb.ChatMessage:
    deleted = event.message_id in room.deleted
    preset = {v: k for k, v in PRESET_NAMES.items()}.get(event.preset, pb.PRESET_UNSPECIFIED)
    return pb.ChatMessage(
        message_id=event.message_id,
        author=event.author,
        text="" if deleted else event.text,
        posted_at=timestamp(event.at),
        preset=preset,
        deleted=deleted,
        version=version,
    )


def item_of(event: RoomEvent, version: int, room: Room) -> pb.WatchRoomResponse:
    item = pb.WatchRoomResponse(version=version, at=timestamp(event.at))
    if isinstance(event, MessagePosted):
        item.message.CopyFrom(message_of(event, version, room))
    elif isinstance(event, MessageDeleted):
        item.deleted.CopyFrom(pb.MessageDeleted(**_fields(event, "message_id", "by", "reason")))
    elif isinstance(event, PlayerTimedOut):
        item.timed_out.CopyFrom(
            pb.PlayerTimedOut(
                until=timestamp(event.until), **_fields(event, "player_id", "by", "reason")
            )
        )
    elif isinstance(event, RoomClosed):
        item.closed.CopyFrom(pb.RoomClosed(by=event.by, reason=event.reason))
    else:
        item.reported.CopyFrom(
            pb.MessageReported(
                context=list(event.context), **_fields(event, "message_id", "by", "reason")
            )
        )
    return item


def _fields(event: Any, *names: str) -> dict[str, str]:
    return {name: getattr(event, name) for name in names}


def scoped_command_id(actor: str, command_id: str) -> str:
    """A client's command id as the room's stream keeps it: scoped to its actor, so no one can
    take another's id first or read another's outcome with it."""
    return "c" + hashlib.sha256(f"{actor}\n{command_id}".encode()).hexdigest()[:40]


class ChatServicer(chat_pb2_grpc.ChatServiceServicer):
    def __init__(
        self,
        rooms: Rooms,
        games: Games,
        settings: ChatSettings,
        bells: GameBells,
        clock: Callable[[], float] = time.time,
        wait_seconds: float = WAIT_SECONDS,
    ) -> None:
        self.rooms = rooms
        self.games = games
        self.settings = settings
        self.policy = settings.policy()
        self.visibility = settings.visibility()
        self.bells = bells
        self.clock = clock
        self.wait_seconds = wait_seconds

    async def _room(self, ref: pb.Room, identity: Identity) -> tuple[RoomId, GameFacts | None]:
        kind = KINDS.get(ref.kind)
        if kind is None:
            raise InvalidArgument("name a room: the lobby, or a game's room", reason="CHAT_NO_ROOM")
        if kind is Kind.LOBBY:
            return RoomId(kind), None
        facts = await self.games.facts(ref.game_type, ref.game_id, identity, ref.invite)
        return RoomId(kind, ref.game_type, ref.game_id), facts

    async def _moderate(self, ref: pb.Room, command: Any) -> None:
        identity = auth.caller()
        room, facts = await self._room(ref, identity)
        may_moderate(viewer_of(identity), facts)
        await self._execute(room, command(identity.player_id, self.clock()), identity)

    async def _execute(
        self, room: RoomId, command: Any, identity: Identity, command_id: str | None = None
    ) -> list[RecordedEvent]:
        fingerprint = request_fingerprint() if command_id else None
        events = await self.rooms.execute(
            room, command, identity.player_id, command_id, fingerprint
        )
        if events:
            self.bells.ring(room.instance, events[-1].version)
        return events

    # -- posting ---------------------------------------------------------------------------

    async def PostMessage(
        self, request: pb.PostMessageRequest, context: Any
    ) -> pb.PostMessageResponse:
        identity = auth.caller()
        room, facts = await self._room(request.room, identity)
        may_write(room.kind, facts, viewer_of(identity))
        if request.preset != pb.PRESET_UNSPECIFIED:
            if request.text:
                raise InvalidArgument(
                    "send text or a preset, not both", reason="CHAT_TEXT_AND_PRESET"
                )
            preset = PRESET_NAMES[request.preset]
            text = PRESETS[preset]
        else:
            preset, text = "", checked_text(request.text, self.policy)
        prefs, _ = await self.rooms.prefs(identity.player_id)
        if not prefs.enabled:
            raise FailedPrecondition("you have switched chat off", reason="CHAT_OFF")
        command_id = None
        if request.command_id:
            check_command_id(request.command_id)
            command_id = scoped_command_id(identity.player_id, request.command_id)
        post = Post(secrets.token_hex(16), identity.player_id, text, self.clock(), preset)
        (event,) = await self._execute(room, post, identity, command_id)
        (posted,) = await self.rooms.readable([event])
        assert isinstance(posted, MessagePosted)
        state, _ = await self.rooms.load(room)
        return pb.PostMessageResponse(message=message_of(posted, event.version, state))

    # -- watching --------------------------------------------------------------------------

    async def WatchRoom(
        self, request: pb.WatchRoomRequest, context: Any
    ) -> AsyncIterator[pb.WatchRoomResponse]:
        identity = auth.caller()
        room, facts = await self._room(request.room, identity)
        reading(room.kind, facts, viewer_of(identity), self.visibility)  # refused at once
        position = request.after_version
        while True:
            bell = self.bells.bell(room.instance)
            batch = await self._batch(request.room, room, facts, identity, position)
            for item in batch.items:
                yield item
            position = batch.position
            if batch.wait > 0:
                await GameBells.wait(bell, batch.wait)

    async def GetRoomHistory(
        self, request: pb.GetRoomHistoryRequest, context: Any
    ) -> pb.GetRoomHistoryResponse:
        identity = auth.caller()
        room, facts = await self._room(request.room, identity)
        reading(room.kind, facts, viewer_of(identity), self.visibility)
        limit = request.limit or HISTORY_PAGE
        batch = await self._batch(request.room, room, facts, identity, request.after_version, limit)
        return pb.GetRoomHistoryResponse(items=batch.items, version=batch.position)

    async def _batch(
        self,
        ref: pb.Room,
        room: RoomId,
        facts: GameFacts | None,
        identity: Identity,
        position: int,
        limit: int = READ_AT_ONCE,
    ) -> Batch:
        """The room's items after ``position`` as ``identity`` may see them now (at most
        ``limit`` events read), up to the first one held back; how long to wait for more."""
        viewer = viewer_of(identity)
        if facts is not None:  # the game may have ended since
            facts = await self.games.facts(ref.game_type, ref.game_id, identity, ref.invite)
        shown = reading(room.kind, facts, viewer, self.visibility)
        events = await self.rooms.store.read_stream(room.stream, position + 1, position + limit)
        state, _ = await self.rooms.load(room)
        prefs, _ = await self.rooms.prefs(identity.player_id)
        blocking = await self._blocking(events, identity.player_id)
        now = self.clock()
        # a full read: more may be there already, read on at once
        wait = 0.0 if len(events) == limit else self.wait_seconds
        items = []
        for event, item in zip(events, await self.rooms.readable(events), strict=True):
            if isinstance(item, MessagePosted) and not _revealed(shown, item, now):
                if shown.delay is None:
                    wait = HELD_POLL_SECONDS
                else:
                    wait = min(self.wait_seconds, max(0.05, item.at + shown.delay - now))
                break
            position = event.version
            if _shows(item, shown, prefs, blocking):
                items.append(item_of(item, event.version, state))
        return Batch(items, position, wait)

    async def _blocking(self, events: list[RecordedEvent], viewer: str) -> frozenset[str]:
        """The authors among ``events`` who have blocked ``viewer``."""
        authors = {
            e.metadata.actor
            for e in events
            if e.type == MessagePosted.__name__ and e.metadata.actor not in (None, viewer)
        }
        blocking = set()
        for author in authors:
            assert author is not None
            prefs, _ = await self.rooms.prefs(author)
            if viewer in prefs.blocked:
                blocking.add(author)
        return frozenset(blocking)

    # -- a player's own choices --------------------------------------------------------------

    async def MutePlayer(
        self, request: pb.MutePlayerRequest, context: Any
    ) -> pb.MutePlayerResponse:
        me = auth.caller().player_id
        await self.rooms.set_prefs(me, SetMute(me, _player(request.player_id), request.mute))
        return pb.MutePlayerResponse()

    async def BlockPlayer(
        self, request: pb.BlockPlayerRequest, context: Any
    ) -> pb.BlockPlayerResponse:
        me = auth.caller().player_id
        await self.rooms.set_prefs(me, SetBlock(me, _player(request.player_id), request.block))
        return pb.BlockPlayerResponse()

    async def SetChatEnabled(
        self, request: pb.SetChatEnabledRequest, context: Any
    ) -> pb.SetChatEnabledResponse:
        await self.rooms.set_prefs(auth.caller().player_id, SetChat(request.enabled))
        return pb.SetChatEnabledResponse()

    async def ReportMessage(
        self, request: pb.ReportMessageRequest, context: Any
    ) -> pb.ReportMessageResponse:
        identity = auth.caller()
        room, facts = await self._room(request.room, identity)
        reading(room.kind, facts, viewer_of(identity), self.visibility)
        report = Report(request.message_id, identity.player_id, request.reason, self.clock())
        await self._execute(room, report, identity)
        return pb.ReportMessageResponse()

    # -- moderation --------------------------------------------------------------------------

    async def TimeOutPlayer(
        self, request: pb.TimeOutPlayerRequest, context: Any
    ) -> pb.TimeOutPlayerResponse:
        player = _player(request.player_id)
        await self._moderate(
            request.room,
            lambda by, at: TimeOut(player, request.seconds, by, request.reason, at),
        )
        return pb.TimeOutPlayerResponse()

    async def DeleteMessage(
        self, request: pb.DeleteMessageRequest, context: Any
    ) -> pb.DeleteMessageResponse:
        await self._moderate(
            request.room, lambda by, at: Delete(request.message_id, by, request.reason, at)
        )
        return pb.DeleteMessageResponse()

    async def CloseRoom(self, request: pb.CloseRoomRequest, context: Any) -> pb.CloseRoomResponse:
        await self._moderate(request.room, lambda by, at: Close(by, request.reason, at))
        return pb.CloseRoomResponse()

    async def GetModerationLog(
        self, request: pb.GetModerationLogRequest, context: Any
    ) -> pb.GetModerationLogResponse:
        identity = auth.caller()
        room, facts = await self._room(request.room, identity)
        may_moderate(viewer_of(identity), facts)
        state, _ = await self.rooms.load(room)
        events = await self.rooms.store.read_stream(room.stream)
        entries = [
            item_of(item, event.version, state)
            for event, item in zip(events, await self.rooms.readable(events), strict=True)
            if isinstance(item, MODERATION)
        ]
        return pb.GetModerationLogResponse(entries=entries[-MODERATION_LOG:])


def _revealed(shown: Reading, message: MessagePosted, now: float) -> bool:
    if shown.delay is None:
        return False
    return message.at + shown.delay <= now


def _shows(item: RoomEvent, shown: Reading, prefs: Prefs, blocking: frozenset[str]) -> bool:
    if isinstance(item, MessageReported):
        return shown.moderation
    if isinstance(item, MessagePosted):
        return prefs.enabled and not prefs.hides(item.author) and item.author not in blocking
    return True


def _player(player_id: str) -> str:
    if not player_id.strip():
        raise InvalidArgument("name a player", reason="INVALID_PLAYER_ID")
    return player_id
