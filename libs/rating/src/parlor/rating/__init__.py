"""Parlor's rating maths: Glicko-2, its multi-player generalisation and player records.

Pure and deterministic: no clock (times and elapsed periods are passed in), no
randomness, and the same bits on every machine so ratings rebuilt from history are
identical to the live ones.
"""

from parlor.rating.glicko2 import (
    INITIAL_RATING,
    INITIAL_RD,
    INITIAL_VOLATILITY,
    SCALE,
    TAU,
    Rating,
    Result,
    elapsed_periods,
    idle,
    rate,
)
from parlor.rating.leaderboard import leaderboard
from parlor.rating.record import Record, tally_game
from parlor.rating.standings import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Outcome,
    Standing,
    apply_game,
    apply_weighted_game,
    canonical,
    outcomes,
    pairwise_score,
)

__all__ = [
    "INITIAL_RATING",
    "INITIAL_RD",
    "INITIAL_VOLATILITY",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "SCALE",
    "TAU",
    "Outcome",
    "Rating",
    "Record",
    "Result",
    "Standing",
    "apply_game",
    "apply_weighted_game",
    "canonical",
    "elapsed_periods",
    "idle",
    "leaderboard",
    "outcomes",
    "pairwise_score",
    "rate",
    "tally_game",
]
