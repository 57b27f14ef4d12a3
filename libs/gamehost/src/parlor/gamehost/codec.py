"""How a game's domain events become stored payloads and back (protobuf, in each service).

Each game service writes its own ``EventCodec`` (its event messages are its own);
the pieces every one of them needs alike live here: reading a stored payload into
the message its type names, and the ``EventInfo`` a client sees with each event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from google.protobuf.message import DecodeError, Message

from parlor.common.v1 import common_pb2
from parlor.core.errors import ParlorError

E = TypeVar("E")


class EventCodec(Protocol[E]):
    """Turns domain events into (type name, payload bytes) and back; lossless both ways."""

    def encode(self, event: E) -> tuple[str, bytes]: ...

    def decode(self, event_type: str, data: bytes) -> E: ...


def parse_payload(
    types: Mapping[str, type[Message]], game: str, event_type: str, data: bytes
) -> Message:
    """The stored payload as the message its type names; an unknown type or bad bytes
    is a ``ParlorError`` naming the game and the type (a store no longer readable)."""
    cls = types.get(event_type)
    if cls is None:
        raise ParlorError(f"unknown {game} event type {event_type!r}")
    message = cls()
    try:
        message.ParseFromString(data)
    except DecodeError as exc:
        raise ParlorError(f"corrupt {event_type} payload: {exc}") from exc
    return message


def event_info(recorded: Any) -> common_pb2.EventInfo:
    """Where a stored event sits (stream, version, global position, type, time), for clients.

    ``recorded`` is the game host's ``Recorded`` (its ``record`` is the stored event).
    """
    record = recorded.record
    out = common_pb2.EventInfo(
        stream_id=record.stream_id,
        version=record.version,
        position=record.position,
        type=record.type,
    )
    out.recorded_at.FromDatetime(record.recorded_at)
    return out
