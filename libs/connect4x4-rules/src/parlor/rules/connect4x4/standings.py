"""How the seats of a finished Connect 4x4 game rank (what ``GameFinished`` carries)."""

from __future__ import annotations

from parlor.core.game import Standing
from parlor.rules import connect4x4 as c4


def standings(state: c4.State) -> tuple[str, tuple[Standing, ...]]:
    """Winner first, everyone else second; a tie shares first place among the seats still
    playing, and seats that left (resigned or ran out of time) come second. Each seat that
    left says why (``Standing.departure``)."""
    outcome = c4.result(state)
    assert outcome is not None, "standings are asked only of finished games"
    seats = range(state.players)
    if outcome.winner is None:
        ranks = [2 if state.is_out(seat) else 1 for seat in seats]
    else:
        ranks = [1 if seat == outcome.winner else 2 for seat in seats]
    return outcome.reason, tuple(
        Standing(ranks[seat], departure=state.departure(seat)) for seat in seats
    )
