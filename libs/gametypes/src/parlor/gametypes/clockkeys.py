"""The clock's keys in an event's metadata: when the command that appended it was decided
and for which seat. Every reader of a game's timing (the clock fold, scoring's time sheet,
a tournament's berserk) reads them by these names."""

AT = "clock_at"
"""Metadata key: the server time of the command that appended the event (ISO 8601, UTC)."""
SEAT = "clock_seat"
"""Metadata key, on a command's first event only: the seat the command acted for."""
GIVEN = "clock_given"
"""Metadata key, where it differs from ``clock_at``: when the command was decided, after
what the platform did for it once it arrived (the dictionary's answer): the seats it gives
the turn to start then, never charged the platform's time."""
