"""Runs a pure rule engine as an event-sourced game on an event store."""

from parlor.gamehost.host.host import GameHost, Outcome, Recorded
from parlor.gamehost.table.codec import EventCodec

__all__ = [
    "EventCodec",
    "GameHost",
    "Outcome",
    "Recorded",
]
