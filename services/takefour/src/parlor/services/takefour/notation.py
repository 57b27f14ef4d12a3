"""The export of a finished game: Take Four notation (``parlor.rules.takefour.notation``)
with the platform's seats and finish in it."""

from __future__ import annotations

from collections.abc import Sequence

from parlor.gamehost.export import seat_tags
from parlor.gamehost.seating import GameFinished, SeatsTaken
from parlor.rules.takefour import notation
from parlor.services.takefour.codec import Event


def export(game_id: str, lexicon_id: str, events: Sequence[Event]) -> str:
    """The game's notation; ``events`` is the whole stream, in order."""
    seats = [s for e in events if isinstance(e, SeatsTaken) for s in e.seats]
    ends = [
        (e.reason, [s.rank for s in e.standings]) for e in events if isinstance(e, GameFinished)
    ]
    moves = [e for e in events if not isinstance(e, SeatsTaken | GameFinished)]
    return notation.export(game_id, lexicon_id, moves, seat_tags(seats), ends[-1] if ends else None)
