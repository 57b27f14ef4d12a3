"""Runs a pure rule engine as an event-sourced game on an event store."""

from parlor.gamehost.codec import EventCodec
from parlor.gamehost.host import GameHost, Outcome, Recorded

__all__ = [
    "EventCodec",
    "GameHost",
    "Outcome",
    "Recorded",
]
