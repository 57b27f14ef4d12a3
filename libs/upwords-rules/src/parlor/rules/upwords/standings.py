"""How the seats of a finished Upwords game rank (what ``GameFinished`` carries)."""

from __future__ import annotations

from parlor.core.game import Standing
from parlor.rules import upwords as uw


def standings(state: uw.UpwordsState) -> tuple[str, tuple[Standing, ...]]:
    """Winners first; the others by final score, behind every winner (a resigner never wins).
    A seat that resigned and dropped out (rules 2), or ran out of time (rules 3), comes behind
    every seat that played on, whatever its score, as in the other games. Each seat that left
    says why (``Standing.departure``)."""
    scores = state.scores
    winners = set(state.winners)
    timeouts_leave = state.config.rules >= 3
    left = [
        state.has_resigned(seat) or (timeouts_leave and state.is_out(seat))
        for seat in range(len(scores))
    ]

    def before(other: int, seat: int) -> bool:
        if other in winners:
            return True
        if left[other] != left[seat]:
            return left[seat]  # those who played on come first
        return scores[other] > scores[seat]

    ranked: list[Standing] = []
    for seat, score in enumerate(scores):
        if seat in winners:
            ranked.append(Standing(1, score, departure=state.departure(seat)))
            continue
        ahead = sum(1 for other in range(len(scores)) if other != seat and before(other, seat))
        ranked.append(Standing(1 + ahead, score, departure=state.departure(seat)))
    return state.end_reason, tuple(ranked)
