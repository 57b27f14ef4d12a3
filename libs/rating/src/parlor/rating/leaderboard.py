"""Leaderboards: players ranked by their conservative rating."""

from __future__ import annotations

from collections.abc import Mapping

from parlor.rating.glicko2 import Rating


def leaderboard(
    ratings: Mapping[str, Rating], limit: int | None = None
) -> list[tuple[str, Rating]]:
    """Best first by ``rating - 2 RD``, then player id, so equal scores have one fixed order."""
    ranked = sorted(ratings.items(), key=lambda item: (-item[1].conservative, item[0]))
    return ranked if limit is None else ranked[:limit]
