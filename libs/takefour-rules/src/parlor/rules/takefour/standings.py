"""How the seats of a finished Take Four game rank (what ``GameFinished`` carries)."""

from __future__ import annotations

from parlor.core.game import Standing
from parlor.rules import takefour as tf


def standings(state: tf.TakeFourState) -> tuple[str, tuple[Standing, ...]]:
    """Lowest total wins (rank 1, shared on ties); each seat's score is its total. Seats
    that forfeited rank behind every seat still racing."""
    totals = state.totals
    gone = tuple(p.forfeited for p in state.players)
    reason = "TARGET_SCORE" if max(totals) >= state.config.target else "ROUNDS_PLAYED"
    if sum(1 for g in gone if not g) <= 1 and any(gone):
        reason = "FORFEIT"
    keys = [(g, t) for g, t in zip(gone, totals, strict=True)]
    return reason, tuple(
        Standing(rank=1 + sum(1 for other in keys if other < key), score=key[1]) for key in keys
    )
