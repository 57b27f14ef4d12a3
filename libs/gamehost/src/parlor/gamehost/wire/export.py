"""How every game's export (``ExportGame``) names its players: PGN-style tags, one pair a seat.

PGN names the players in tags (``[White "name"]``, with an id in a tag of its own); a
game of Parlor has numbered seats, so every export opens with, for each seat ``i``::

    [Seat0 "Ada"]
    [Seat0Id "p-3f2a"]
    [Seat1 "bot:strong"]
    [Seat1Id "bot:strong"]

``Seat<i>`` is the name people see (the display name, else the player id) and
``Seat<i>Id`` the player id; the record below them names players by seat number (or,
in a format of its own such as Upwords' GCG, as that format does). A value is quoted
as PGN quotes it: ``\\`` and ``"`` escaped with a backslash, line breaks as spaces.
The CLI's transcripts write the same lines (``parlor.cli.games``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from parlor.gamehost.table.seating import TABLE_EVENTS, GameFinished, SeatsTaken
from parlor.gametypes.seats import Seat


def tag(name: str, value: str) -> str:
    """One tag line, ``[Name "value"]``, the value quoted."""
    quoted = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{" ".join(quoted.splitlines())}"]'


def seat_tags(seats: Sequence[Seat]) -> list[str]:
    """The lines that name the players of an export, seat by seat."""
    lines: list[str] = []
    for i, seat in enumerate(seats):
        lines += [tag(f"Seat{i}", seat.name or seat.player_id), tag(f"Seat{i}Id", seat.player_id)]
    return lines


def with_seat_tags(seats: Sequence[Seat], lines: Iterable[str]) -> str:
    """An export's text: the seat tags, then ``lines``, one a line."""
    return "\n".join([*seat_tags(seats), *lines])


def export_parts(
    events: Sequence[object],
) -> tuple[list[Any], list[str], tuple[str, list[int]] | None]:
    """A whole stream as a game's own notation takes it (Take Four's): the game's own events,
    the seat tags (of ``SeatsTaken``), and how it finished (``GameFinished``: the reason and
    each seat's rank; None: not finished)."""
    seats = [s for e in events if isinstance(e, SeatsTaken) for s in e.seats]
    ends = [
        (e.reason, [s.rank for s in e.standings]) for e in events if isinstance(e, GameFinished)
    ]
    moves = [e for e in events if not isinstance(e, TABLE_EVENTS)]
    return moves, seat_tags(seats), ends[-1] if ends else None
