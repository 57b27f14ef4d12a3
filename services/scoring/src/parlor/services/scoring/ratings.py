"""The fold: each player's rating and record after one more game (pure, deterministic).

Live scoring and the rebuild both apply games with ``score_game`` in global
position order per game type, from the same stored values, so they arrive at the
same floats. Only humans are rated: bot seats count for the humans' records (a win
against bots is a win) but not for ratings, since ``bot:greedy`` is not one player
and several bots may share a name. A game with fewer than two humans changes no
rating. A human in several seats counts once, with their best seat. An aborted game
(reason ``ABORTED``: matched, and a seat ran out of time before its first move) changes
no rating and no record; a timeout is a loss like any other (its rank says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from parlor.rating import Rating, Record, apply_game, elapsed_periods, idle, outcomes
from parlor.services.scoring.sheet import FinishedGame, SeatResult

ABORTED = "ABORTED"
"""A game nobody started in time (gamehost clocks): never rated."""


@dataclass(frozen=True)
class PlayerScore:
    """One player's standing in one game type."""

    player_id: str
    rating: Rating
    rated: bool
    record: Record
    total_score: int
    last_played: datetime


def humans(game: FinishedGame) -> dict[str, SeatResult]:
    """Each human once, with their best seat (lowest rank, then lowest seat)."""
    best: dict[str, SeatResult] = {}
    for result in sorted(game.results, key=lambda r: (r.rank, r.seat)):
        if not result.is_bot:
            best.setdefault(result.player_id, result)
    return best


def score_game(
    before: Mapping[str, PlayerScore], game: FinishedGame, period: timedelta
) -> dict[str, PlayerScore]:
    """The game's human players after it; players missing from ``before`` are newcomers."""
    seated = humans(game)
    if not seated or len(game.results) < 2 or game.reason == ABORTED:
        return {}
    seat_outcomes = outcomes([(f"{r.seat:03d}", r.rank) for r in game.results])
    new_ratings: dict[str, Rating] = {}
    if len(seated) >= 2:
        aged = {
            player: idle(
                before[player].rating,
                elapsed_periods(before[player].last_played, game.finished_at, period),
            )
            for player in seated
            if player in before
        }
        new_ratings = apply_game(aged, [(p, r.rank) for p, r in seated.items()])
    after: dict[str, PlayerScore] = {}
    for player, result in sorted(seated.items()):
        old = before.get(player)
        outcome = seat_outcomes[f"{result.seat:03d}"]
        if old is None:
            old = PlayerScore(player, Rating(), False, Record(), 0, game.finished_at)
        after[player] = replace(
            old,
            rating=new_ratings.get(player, old.rating),
            rated=old.rated or player in new_ratings,
            record=old.record.add(outcome),
            total_score=old.total_score + result.score,
            last_played=max(old.last_played, game.finished_at),
        )
    return after


def fold(games: list[FinishedGame], period: timedelta) -> dict[tuple[str, str], PlayerScore]:
    """Every player of every game type, from nothing, applying games by position."""
    table: dict[tuple[str, str], PlayerScore] = {}
    for game in sorted(games, key=lambda g: g.position):
        before = {
            p: table[(game.game_type, p)] for p in humans(game) if (game.game_type, p) in table
        }
        for player, score in score_game(before, game, period).items():
            table[(game.game_type, player)] = score
    return table
