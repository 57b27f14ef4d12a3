"""Runs a pure rule engine as an event-sourced game on an event store."""

from parlor.gamehost.bells import GameBells
from parlor.gamehost.codec import EventCodec
from parlor.gamehost.host import GameHost, Outcome, Recorded, SystemCommandId, system_command_id

__all__ = [
    "EventCodec",
    "GameBells",
    "GameHost",
    "Outcome",
    "Recorded",
    "SystemCommandId",
    "system_command_id",
]
