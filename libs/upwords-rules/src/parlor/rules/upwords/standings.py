"""How the seats of a finished Upwords game rank (what ``GameFinished`` carries)."""

from __future__ import annotations

from parlor.core.game import Standing
from parlor.rules import upwords as uw


def standings(state: uw.UpwordsState) -> tuple[str, tuple[Standing, ...]]:
    """Winners first; the others by final score, behind every winner (a resigner never wins)."""
    scores = state.scores
    winners = set(state.winners)
    ranked: list[Standing] = []
    for seat, score in enumerate(scores):
        if seat in winners:
            ranked.append(Standing(1, score))
            continue
        ahead = sum(1 for other in range(len(scores)) if other in winners or scores[other] > score)
        ranked.append(Standing(1 + ahead, score))
    return state.end_reason, tuple(ranked)
