"""A finished game's standings, rated: Glicko-2 generalised to 2-8 players.

A game with ranks is read as every pairwise result between its players (the better
rank wins, equal ranks draw), each pair weighted 1/(n-1) so that one game carries
one game's worth of evidence whatever its size; all players are updated at once
from their pre-game ratings, one rating period per game. For two players this is
exactly Glicko-2. See ``libs/rating/README.md`` for why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from enum import Enum

from parlor.core.errors import InvalidArgument
from parlor.rating.glicko2 import TAU, Rating, Result, rate

MIN_PLAYERS = 2
MAX_PLAYERS = 8

Standing = tuple[str, int]
"""A player id and their rank in the game: 1 is best; equal ranks are ties."""


class Outcome(Enum):
    """How one player's game ended, for statistics."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


def canonical(standings: Sequence[Standing]) -> list[Standing]:
    """Checked standings in one fixed order (rank, then player id), whatever order they came in.

    Every sum is taken in this order, so the same game gives the same bits however
    its players were listed.
    """
    if not MIN_PLAYERS <= len(standings) <= MAX_PLAYERS:
        raise InvalidArgument(
            f"a rated game has {MIN_PLAYERS} to {MAX_PLAYERS} players",
            reason="BAD_PLAYER_COUNT",
        )
    players = [player for player, _ in standings]
    if len(set(players)) != len(players):
        raise InvalidArgument("a player appears twice in the standings", reason="DUPLICATE_PLAYER")
    for player, rank in standings:
        if not isinstance(player, str) or not player:
            raise InvalidArgument("a player id is a non-empty string", reason="BAD_PLAYER")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
            raise InvalidArgument("a rank is a positive integer", reason="BAD_RANK")
    return sorted(standings, key=lambda standing: (standing[1], standing[0]))


def pairwise_score(rank: int, opponent_rank: int) -> float:
    """The Glicko score of one pair: a better (lower) rank wins, equal ranks draw."""
    if rank < opponent_rank:
        return 1.0
    if rank == opponent_rank:
        return 0.5
    return 0.0


def apply_game(
    ratings: Mapping[str, Rating],
    standings: Sequence[Standing],
    *,
    tau: float = TAU,
) -> dict[str, Rating]:
    """Every player's rating after this game, all computed from the pre-game ratings.

    A player missing from ``ratings`` starts from ``Rating()`` (1500, 350, 0.06).
    The result holds exactly the game's players, in canonical order.
    """
    ordered = canonical(standings)
    before = {player: ratings.get(player, Rating()) for player, _ in ordered}
    weight = 1.0 / (len(ordered) - 1)
    after: dict[str, Rating] = {}
    for player, rank in ordered:
        results = [
            Result(before[opponent], pairwise_score(rank, opponent_rank), weight)
            for opponent, opponent_rank in ordered
            if opponent != player
        ]
        after[player] = rate(before[player], results, tau=tau)
    return after


def apply_weighted_game(
    ratings: Mapping[str, Rating],
    standings: Sequence[Standing],
    weights: Mapping[tuple[str, str], float],
    *,
    tau: float = TAU,
) -> dict[str, Rating]:
    """``apply_game`` with each pairwise result weighed: ``weights[(player, opponent)]`` (in
    [0, 1], missing: 1) multiplies the 1/(n-1) of ``player``'s result against ``opponent``.

    A result of weight 0 is left out; a player left with no result keeps their rating and is
    not in the answer (no rating period passes for them: nothing was learnt). With every
    weight 1 this is ``apply_game``, bit for bit (the same sums in the same order).
    """
    ordered = canonical(standings)
    before = {player: ratings.get(player, Rating()) for player, _ in ordered}
    base = 1.0 / (len(ordered) - 1)
    after: dict[str, Rating] = {}
    for player, rank in ordered:
        results = []
        for opponent, opponent_rank in ordered:
            if opponent == player:
                continue
            weight = weights.get((player, opponent), 1.0)
            if not (math.isfinite(weight) and 0.0 <= weight <= 1.0):
                raise InvalidArgument("a result's weight lies between 0 and 1", reason="BAD_WEIGHT")
            if weight > 0.0:
                score = pairwise_score(rank, opponent_rank)
                results.append(Result(before[opponent], score, base * weight))
        if results:
            after[player] = rate(before[player], results, tau=tau)
    return after


def outcomes(standings: Sequence[Standing]) -> dict[str, Outcome]:
    """Each player's outcome: best rank wins (shared wins too), all-equal is a draw, else a loss."""
    ordered = canonical(standings)
    best = ordered[0][1]
    everyone_tied = ordered[-1][1] == best
    return {
        player: Outcome.DRAW if everyone_tied else Outcome.WIN if rank == best else Outcome.LOSS
        for player, rank in ordered
    }
