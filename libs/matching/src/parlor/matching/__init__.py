"""Parlor's matchmaking, pure: tickets, rating windows, private lobbies and bot fill.

No clock (``now`` is passed in), no randomness, no I/O: the same waiting tickets at
the same ``now`` always give the same matches, so any replica can run a round over
the rows it locked and persist the result in one transaction.
"""

from parlor.matching.match import Match, Round
from parlor.matching.policy import BOT_PREFIX, Policy
from parlor.matching.pool import Pool
from parlor.matching.tables import form_matches
from parlor.matching.ticket import MIN_PLAYERS, Ticket

__all__ = [
    "BOT_PREFIX",
    "MIN_PLAYERS",
    "Match",
    "Policy",
    "Pool",
    "Round",
    "Ticket",
    "form_matches",
]
