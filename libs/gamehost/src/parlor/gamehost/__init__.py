"""Runs a pure rule engine as an event-sourced game on an event store."""

from parlor.gamehost.codec import EventCodec
from parlor.gamehost.doorbell import Doorbell
from parlor.gamehost.host import GameHost, Outcome, Recorded, SystemCommandId, system_command_id

__all__ = [
    "Doorbell",
    "EventCodec",
    "GameHost",
    "Outcome",
    "Recorded",
    "SystemCommandId",
    "system_command_id",
]
