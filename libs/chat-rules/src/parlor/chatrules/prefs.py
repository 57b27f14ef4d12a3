"""A player's own chat choices as a decider: whom they mute or block, and chat on or off.

- **mute**: the muting player is never shown the muted player's messages, in any room;
- **block**: a mute both ways: neither is shown the other's messages;
- **chat off**: the player is shown no room's messages and posts none
  (``FAILED_PRECONDITION CHAT_OFF``) until they switch it on again.

Each player's choices are one stream (``chatprefs-<hash of the player id>``), written only by
that player. At most ``MAX_LISTED`` players muted or blocked (``RESOURCE_EXHAUSTED
CHAT_TOO_MANY_MUTES``); muting oneself is ``INVALID_ARGUMENT CHAT_MUTE_SELF``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from parlor.core.errors import InvalidArgument, ResourceExhausted

MAX_LISTED = 1000


@dataclass(frozen=True)
class Muted:
    player_id: str
    on: bool


@dataclass(frozen=True)
class Blocked:
    player_id: str
    on: bool


@dataclass(frozen=True)
class ChatSwitched:
    enabled: bool


PrefsEvent = Muted | Blocked | ChatSwitched
PREFS_EVENT_TYPES: dict[str, type[PrefsEvent]] = {
    cls.__name__: cls for cls in (Muted, Blocked, ChatSwitched)
}


@dataclass(frozen=True)
class SetMute:
    owner: str
    player_id: str
    on: bool


@dataclass(frozen=True)
class SetBlock:
    owner: str
    player_id: str
    on: bool


@dataclass(frozen=True)
class SetChat:
    enabled: bool


PrefsCommand = SetMute | SetBlock | SetChat


@dataclass(frozen=True)
class Prefs:
    muted: frozenset[str] = frozenset()
    blocked: frozenset[str] = frozenset()
    enabled: bool = True

    def hides(self, author: str) -> bool:
        """Whether the owner of these choices is never shown ``author``'s messages."""
        return author in self.muted or author in self.blocked


class PrefsDecider:
    def initial_state(self) -> Prefs:
        return Prefs()

    def is_terminal(self, state: Prefs) -> bool:
        return False

    def decide(self, state: Prefs, command: PrefsCommand) -> Sequence[PrefsEvent]:
        if isinstance(command, SetChat):
            return [] if command.enabled == state.enabled else [ChatSwitched(command.enabled)]
        if command.player_id == command.owner:
            raise InvalidArgument("you cannot mute or block yourself", reason="CHAT_MUTE_SELF")
        listed = state.muted if isinstance(command, SetMute) else state.blocked
        if (command.player_id in listed) == command.on:
            return []
        if command.on and len(state.muted | state.blocked) >= MAX_LISTED:
            raise ResourceExhausted(
                f"at most {MAX_LISTED} players muted or blocked", reason="CHAT_TOO_MANY_MUTES"
            )
        if isinstance(command, SetMute):
            return [Muted(command.player_id, command.on)]
        return [Blocked(command.player_id, command.on)]

    def evolve(self, state: Prefs, event: PrefsEvent) -> Prefs:
        if isinstance(event, ChatSwitched):
            return dataclasses.replace(state, enabled=event.enabled)

        def changed(listed: frozenset[str]) -> frozenset[str]:
            return listed | {event.player_id} if event.on else listed - {event.player_id}

        if isinstance(event, Muted):
            return dataclasses.replace(state, muted=changed(state.muted))
        return dataclasses.replace(state, blocked=changed(state.blocked))


PREFS = PrefsDecider()
