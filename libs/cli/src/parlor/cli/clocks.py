"""The clocks of a game as one line for the terminal: each seat's time left, as of now."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def clock_line(game: Any, now: datetime | None = None) -> str:
    """``"clock 5+3: Ann 4:52 (running), Bob 5:00"``; empty for an untimed game."""
    clocks = getattr(game, "clocks", None)
    if clocks is None or clocks.time_control.kind <= 1:  # unspecified or none
        return ""
    now = now or datetime.now(UTC)
    names = [getattr(s, "seat", s) for s in getattr(game, "seats", [])]
    parts = []
    for seat in clocks.seats:
        left = seat.remaining.ToTimedelta().total_seconds()
        if seat.running and seat.HasField("deadline"):
            left = max(0.0, (seat.deadline.ToDatetime(UTC) - now).total_seconds())
        minutes, seconds = divmod(int(left), 60)
        who = names[seat.seat] if seat.seat < len(names) else None
        name = (who.display_name or who.player_id) if who is not None else f"seat {seat.seat}"
        state = " (out of time)" if seat.timed_out else " (running)" if seat.running else ""
        parts.append(f"{name} {minutes}:{seconds:02d}{state}")
    tc = clocks.time_control
    label = (
        f"{tc.initial_seconds // 60}+{tc.increment_seconds}"
        if tc.kind == 3
        else f"{tc.move_seconds}s/move"
    )
    return f"clock {label}: " + ", ".join(parts)
