"""Rooms and players' chat choices in the event store.

Streams (the ``chat`` category is relayed to NATS with its payload emptied: another replica's
watchers learn that a room has news, and read it from the store; no text is ever on the bus;
``chatprefs`` is not relayed at all):

- ``chat-lobby``: the lobby's room;
- ``chat-p-<game type>-<game id>``: a game's players' room;
- ``chat-s-<game type>-<game id>``: a game's spectators' room;
- ``chatprefs-<sha256 of the player id, 40 hex digits>``: a player's mutes, blocks and whether
  their chat is on (no personal data in a stream id).

What a person wrote is stored sealed with their key (``parlor.eventstore.vault``): a
message's text with its author's, a report's reason with its reporter's, a moderator's
reason with the moderator's (``SEALED``); erasing the account shreds them, and they then
read as "" (docs/chat.md). The room's state never holds texts, so deciding needs no key;
what is shown is unsealed by ``Rooms.readable``.

Each room is decided by ``parlor.chatrules.ROOMS`` on the state folded from its stream (cached per
room and brought up to date from the store before each decision) and appended with the
version it was decided on; a conflict with another replica decides again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from parlor.accounts.codec import decode, encode
from parlor.chatrules import (
    EVENT_TYPES,
    PREFS,
    PREFS_EVENT_TYPES,
    ROOMS,
    Kind,
    Limits,
    MessageDeleted,
    MessagePosted,
    MessageReported,
    PlayerTimedOut,
    Prefs,
    PrefsCommand,
    Room,
    RoomClosed,
    RoomCommand,
    RoomEvent,
)
from parlor.core.errors import Conflict, Unavailable
from parlor.eventstore import EventStore, Metadata, NewEvent, RecordedEvent
from parlor.eventstore.events import command_id_reused
from parlor.eventstore.vault import AccountKeys, keys_for, seal, unseal

CATEGORY = "chat"
PREFS_CATEGORY = "chatprefs"
RETRIES = 16
CACHED_ROOMS = 4096
TEXT = "text"
"""The sealed field of ``MessagePosted``."""
SEALED: dict[type[RoomEvent], tuple[str, str]] = {
    MessagePosted: ("author", TEXT),
    MessageReported: ("by", "reason"),
    PlayerTimedOut: ("by", "reason"),
    MessageDeleted: ("by", "reason"),
    RoomClosed: ("by", "reason"),
}
"""What each kind of event holds that a person wrote: (whose it is, the field), sealed with
that person's key."""
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


@dataclass(frozen=True)
class RoomId:
    kind: Kind
    game_type: str = ""
    game_id: str = ""

    @property
    def instance(self) -> str:
        """The stream's id within the category (and the room's bell)."""
        if self.kind is Kind.LOBBY:
            return "lobby"
        return f"{self.kind.value[0]}-{self.game_type}-{self.game_id}"

    @property
    def stream(self) -> str:
        return f"{CATEGORY}-{self.instance}"


def room_event(event: RecordedEvent) -> RoomEvent:
    return decode(dict(EVENT_TYPES), event.type, event.data)


def _unsealed(event: RoomEvent, keys: dict[str, bytes | None]) -> RoomEvent:
    sealed = SEALED.get(type(event))
    if sealed is None:
        return event
    whose, field = sealed
    owner = getattr(event, whose)
    opened = unseal(keys[owner], owner, type(event).__name__, field, getattr(event, field))
    out: RoomEvent = replace(cast(Any, event), **{field: opened})
    return out


def prefs_stream(player_id: str) -> str:
    return f"{PREFS_CATEGORY}-{hashlib.sha256(player_id.encode()).hexdigest()[:40]}"


class Rooms:
    """Rooms over any event store (in memory for unit tests, PostgreSQL in service)."""

    def __init__(
        self, store: EventStore, limits: Limits | None = None, keys: AccountKeys | None = None
    ) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.keys = keys or keys_for(store)
        self._cache: OrderedDict[str, tuple[Room, int]] = OrderedDict()

    async def load(self, room: RoomId) -> tuple[Room, int]:
        """The room's state and version, as the store holds it now."""
        state, version = self._cache.get(room.stream, (Room(limits=self.limits), 0))
        for event in await self.store.read_stream(room.stream, version + 1):
            state, version = ROOMS.evolve(state, room_event(event)), event.version
        self._cache[room.stream] = (state, version)
        self._cache.move_to_end(room.stream)
        while len(self._cache) > CACHED_ROOMS:
            self._cache.popitem(last=False)
        return state, version

    async def execute(
        self,
        room: RoomId,
        command: RoomCommand,
        actor: str,
        command_id: str | None = None,
        fingerprint: str | None = None,
    ) -> list[RecordedEvent]:
        """Decide ``command`` on the room and append what it decides; the events as stored
        (a command id already applied: the events it appended then)."""
        if command_id is not None:
            known = await self.store.command_result(room.stream, command_id)
            if known is not None:
                if fingerprint and known.fingerprint and known.fingerprint != fingerprint:
                    raise command_id_reused(room.stream)
                return await self._again(room, known.versions)
        for _ in range(RETRIES):
            state, version = await self.load(room)
            events = ROOMS.decide(state, command)
            if not events:
                return []
            try:
                result = await self.store.append(
                    room.stream,
                    await self._sealed(events, actor, command_id),
                    version,
                    command_id,
                    fingerprint=fingerprint,
                )
            except Conflict:
                continue
            if result.duplicate:
                return await self._again(room, result.versions)
            return list(result.events)
        raise Unavailable("the room is too busy right now; try again", reason="CHAT_CONFLICT")

    async def _sealed(
        self, events: Sequence[RoomEvent], actor: str, command_id: str | None
    ) -> list[NewEvent]:
        """The events to append, what a person wrote in each sealed with their key
        (``SEALED``; an empty reason stays empty)."""
        out = []
        for event in events:
            kind, data = encode(event)
            sealed = SEALED.get(type(event))
            if sealed is not None and getattr(event, sealed[1]):
                whose, field = sealed
                owner = getattr(event, whose)
                key = await self.keys.get_or_create(owner)
                fields = json.loads(data)
                fields[field] = seal(key, owner, kind, field, getattr(event, field))
                data = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
            out.append(NewEvent(kind, data, metadata=Metadata(command_id=command_id, actor=actor)))
        return out

    async def readable(self, events: Sequence[RecordedEvent]) -> list[RoomEvent]:
        """The events as they may be shown: what a person wrote unsealed with their key
        ("" once they are erased; texts stored before sealing read as they are)."""
        decoded = [room_event(e) for e in events]
        owners = {getattr(e, SEALED[type(e)][0]) for e in decoded if type(e) in SEALED}
        keys = {owner: await self.keys.get(owner) for owner in owners}
        return [_unsealed(e, keys) for e in decoded]

    async def _again(self, room: RoomId, versions: range) -> list[RecordedEvent]:
        """A retried command id: the events its first outcome appended."""
        return await self.store.read_stream(room.stream, versions.start, versions.stop - 1)

    async def prefs(self, player_id: str) -> tuple[Prefs, int]:
        state, version = PREFS.initial_state(), 0
        for event in await self.store.read_stream(prefs_stream(player_id)):
            state = PREFS.evolve(state, decode(dict(PREFS_EVENT_TYPES), event.type, event.data))
            version = event.version
        return state, version

    async def set_prefs(self, player_id: str, command: PrefsCommand) -> None:
        for _ in range(RETRIES):
            state, version = await self.prefs(player_id)
            events = PREFS.decide(state, command)
            if not events:
                return
            try:
                await self.store.append(
                    prefs_stream(player_id), _new(events, player_id, None), version
                )
                return
            except Conflict:
                continue
        raise Unavailable(
            "your chat settings are busy right now; try again", reason="CHAT_CONFLICT"
        )


def _new(events: Sequence[Any], actor: str, command_id: str | None) -> list[NewEvent]:
    out = []
    for event in events:
        kind, data = encode(event)
        out.append(NewEvent(kind, data, metadata=Metadata(command_id=command_id, actor=actor)))
    return out
