"""How the seats of a finished Take Four game rank (what ``GameFinished`` carries)."""

from __future__ import annotations

from parlor.core.game import Standing
from parlor.rules import takefour as tf


def standings(state: tf.TakeFourState) -> tuple[str, tuple[Standing, ...]]:
    """Lowest total wins (rank 1, shared on ties); each seat's score is its total. Seats
    that forfeited rank behind every seat still racing, and say why they left
    (``Standing.departure``: on time or by leaving)."""
    totals = state.totals
    gone = tuple(p.forfeited for p in state.players)
    keys = [(g, t) for g, t in zip(gone, totals, strict=True)]
    return finish_reason(state), tuple(
        Standing(
            rank=1 + sum(1 for other in keys if other < key), score=key[1], departure=p.departure
        )
        for key, p in zip(keys, state.players, strict=True)
    )


def finish_reason(state: tf.TakeFourState) -> str:
    """Why the game ended: ``FORFEIT`` (one seat or none left racing), else ``TARGET_SCORE``
    (a contender's total reached the target: ``TakeFourState.contenders``) or
    ``ROUNDS_PLAYED`` (the set number of rounds)."""
    gone = [p.forfeited for p in state.players]
    if any(gone) and gone.count(False) <= 1:
        return "FORFEIT"
    reached = any(state.totals[seat] >= state.config.target for seat in state.contenders)
    return "TARGET_SCORE" if reached else "ROUNDS_PLAYED"
