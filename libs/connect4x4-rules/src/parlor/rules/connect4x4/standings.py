"""How the seats of a finished Connect 4x4 game rank (what ``GameFinished`` carries)."""

from __future__ import annotations

from parlor.core.game import Standing
from parlor.rules import connect4x4 as c4


def standings(state: c4.State) -> tuple[str, tuple[Standing, ...]]:
    """Winner first, everyone else second; a tie shares first place among the seats still
    playing, and seats that left (resigned or ran out of time) come second."""
    outcome = c4.result(state)
    assert outcome is not None, "standings are asked only of finished games"
    if outcome.winner is None:
        gone = state.resigned or (False,) * state.players
        return outcome.reason, tuple(
            Standing(2 if gone[seat] else 1) for seat in range(state.players)
        )
    return outcome.reason, tuple(
        Standing(1 if seat == outcome.winner else 2) for seat in range(state.players)
    )
