"""How a game's domain events become stored payloads and back (protobuf, in each service)."""

from __future__ import annotations

from typing import Protocol, TypeVar

E = TypeVar("E")


class EventCodec(Protocol[E]):
    """Turns domain events into (type name, payload bytes) and back; lossless both ways."""

    def encode(self, event: E) -> tuple[str, bytes]: ...

    def decode(self, event_type: str, data: bytes) -> E: ...
