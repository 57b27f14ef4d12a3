"""A chat room as a decider: posts, rate limits, reports and moderation.

State ``Room``; commands ``Post``, ``Report``, ``TimeOut``, ``Delete``, ``Close``; events
``MessagePosted``, ``MessageReported``, ``PlayerTimedOut``, ``MessageDeleted``,
``RoomClosed``. Times (``at``, seconds since the epoch) and message ids arrive in commands:
the service reads its clock and draws ids, the rules do neither.

Who may post or moderate is the service's question (``parlor.chatrules.access``, the game's
facts); the room decides what its own history says:

- a closed room takes nothing more (``FAILED_PRECONDITION CHAT_ROOM_CLOSED``);
- a player timed out of the room posts nothing until the timeout ends
  (``PERMISSION_DENIED CHAT_TIMED_OUT``, metadata ``until``);
- rate limits, counted from the room's own recent posts so every replica decides alike:
  a player posts at most ``Limits.per_player`` messages in any ``Limits.window_seconds``,
  a room takes at most ``Limits.per_room`` (``RESOURCE_EXHAUSTED CHAT_RATE_LIMITED`` /
  ``CHAT_ROOM_BUSY``, metadata ``retry_after_seconds``);
- a message is deleted once (``NOT_FOUND CHAT_MESSAGE_NOT_FOUND`` for an id the room never
  held): the post stays in the stream and is shown as deleted from then on, replays included.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from parlor.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)

REPORT_CONTEXT = 5
"""How many messages before a reported one are kept with the report."""
MAX_REASON = 200
MAX_TIMEOUT_SECONDS = 7 * 24 * 3600


# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MessagePosted:
    message_id: str
    author: str
    text: str
    at: float
    preset: str = ""


@dataclass(frozen=True)
class MessageReported:
    message_id: str
    by: str
    reason: str
    at: float
    context: tuple[str, ...] = ()
    """The ids of the messages before it (up to ``REPORT_CONTEXT``), oldest first."""


@dataclass(frozen=True)
class PlayerTimedOut:
    player_id: str
    until: float
    by: str
    reason: str
    at: float


@dataclass(frozen=True)
class MessageDeleted:
    message_id: str
    by: str
    reason: str
    at: float


@dataclass(frozen=True)
class RoomClosed:
    by: str
    reason: str
    at: float


RoomEvent = MessagePosted | MessageReported | PlayerTimedOut | MessageDeleted | RoomClosed
EVENT_TYPES: dict[str, type[RoomEvent]] = {
    cls.__name__: cls
    for cls in (MessagePosted, MessageReported, PlayerTimedOut, MessageDeleted, RoomClosed)
}
MODERATION = (MessageReported, PlayerTimedOut, MessageDeleted, RoomClosed)


# -- commands --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Post:
    message_id: str
    author: str
    text: str
    at: float
    preset: str = ""


@dataclass(frozen=True)
class Report:
    message_id: str
    by: str
    reason: str
    at: float


@dataclass(frozen=True)
class TimeOut:
    player_id: str
    seconds: float
    by: str
    reason: str
    at: float


@dataclass(frozen=True)
class Delete:
    message_id: str
    by: str
    reason: str
    at: float


@dataclass(frozen=True)
class Close:
    by: str
    reason: str
    at: float


RoomCommand = Post | Report | TimeOut | Delete | Close


# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    per_player: int = 5
    per_room: int = 60
    window_seconds: float = 10.0


@dataclass(frozen=True)
class Room:
    limits: Limits = Limits()
    closed: bool = False
    messages: tuple[str, ...] = ()
    """Every message id posted, in order."""
    authors: dict[str, str] = field(default_factory=dict)
    deleted: frozenset[str] = frozenset()
    timeouts: dict[str, float] = field(default_factory=dict)
    recent: tuple[tuple[float, str], ...] = ()
    """(at, author) of the posts within the last window of the newest post."""

    def timed_out_until(self, player_id: str, at: float) -> float | None:
        until = self.timeouts.get(player_id)
        return until if until is not None and until > at else None


class RoomDecider:
    def initial_state(self) -> Room:
        return Room()

    def with_limits(self, limits: Limits) -> Room:
        return Room(limits=limits)

    def is_terminal(self, state: Room) -> bool:
        return state.closed

    def decide(self, state: Room, command: RoomCommand) -> Sequence[RoomEvent]:
        if state.closed:
            raise FailedPrecondition("this room is closed", reason="CHAT_ROOM_CLOSED")
        if isinstance(command, Post):
            return [self._post(state, command)]
        if isinstance(command, Report):
            _known(state, command.message_id)
            at = state.messages.index(command.message_id)
            context = state.messages[max(0, at - REPORT_CONTEXT) : at]
            reason = _reason(command.reason)
            return [MessageReported(command.message_id, command.by, reason, command.at, context)]
        if isinstance(command, TimeOut):
            if not 0 < command.seconds <= MAX_TIMEOUT_SECONDS:
                raise InvalidArgument(
                    f"a timeout lasts from 1 second to {MAX_TIMEOUT_SECONDS} seconds",
                    reason="CHAT_BAD_TIMEOUT",
                )
            until = command.at + command.seconds
            return [
                PlayerTimedOut(
                    command.player_id, until, command.by, _reason(command.reason), command.at
                )
            ]
        if isinstance(command, Delete):
            _known(state, command.message_id)
            if command.message_id in state.deleted:
                return []
            return [
                MessageDeleted(command.message_id, command.by, _reason(command.reason), command.at)
            ]
        return [RoomClosed(command.by, _reason(command.reason), command.at)]

    def _post(self, state: Room, command: Post) -> MessagePosted:
        until = state.timed_out_until(command.author, command.at)
        if until is not None:
            raise PermissionDenied(
                "you are timed out of this room for now",
                reason="CHAT_TIMED_OUT",
                metadata={"until": f"{until:.0f}"},
            )
        limits = state.limits
        window = [(t, a) for t, a in state.recent if t > command.at - limits.window_seconds]
        mine = [t for t, a in window if a == command.author]
        if len(mine) >= limits.per_player:
            raise _limited(
                "CHAT_RATE_LIMITED", "you are sending messages too fast", mine, command.at, limits
            )
        if len(window) >= limits.per_room:
            times = [t for t, _ in window]
            raise _limited(
                "CHAT_ROOM_BUSY", "this room is taking too many messages", times, command.at, limits
            )
        return MessagePosted(
            command.message_id, command.author, command.text, command.at, command.preset
        )

    def evolve(self, state: Room, event: RoomEvent) -> Room:
        if isinstance(event, MessagePosted):
            window = state.limits.window_seconds
            recent = tuple((t, a) for t, a in state.recent if t > event.at - window)
            return dataclasses.replace(
                state,
                messages=(*state.messages, event.message_id),
                authors={**state.authors, event.message_id: event.author},
                recent=(*recent, (event.at, event.author)),
            )
        if isinstance(event, MessageDeleted):
            return dataclasses.replace(state, deleted=state.deleted | {event.message_id})
        if isinstance(event, PlayerTimedOut):
            return dataclasses.replace(
                state, timeouts={**state.timeouts, event.player_id: event.until}
            )
        if isinstance(event, RoomClosed):
            return dataclasses.replace(state, closed=True)
        return state


ROOMS = RoomDecider()


def _known(state: Room, message_id: str) -> None:
    if message_id not in state.authors:
        raise NotFound("no such message in this room", reason="CHAT_MESSAGE_NOT_FOUND")


def _reason(reason: str) -> str:
    text = reason.strip()
    if len(text) > MAX_REASON:
        raise InvalidArgument(
            f"a reason holds at most {MAX_REASON} characters", reason="CHAT_BAD_REASON"
        )
    return text


def _limited(
    reason: str, message: str, times: list[float], at: float, limits: Limits
) -> ResourceExhausted:
    """Refused for a limit; retry once the oldest counted post has left the window."""
    retry = max(0.0, min(times) + limits.window_seconds - at)
    return ResourceExhausted(
        message, reason=reason, metadata={"retry_after_seconds": str(math.ceil(retry) or 1)}
    )
