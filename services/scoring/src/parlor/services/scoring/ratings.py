"""The fold: each player's rating and record after one more game (pure, deterministic).

Live scoring and the rebuild both apply games with ``score_game`` in global
position order per game type, from the same stored values, so they arrive at the
same floats. Only humans are rated: bot seats count for the humans' records (a win
against bots is a win) but not for ratings, since ``bot:greedy`` is not one player
and several bots may share a name. A game with fewer than two humans changes no
rating. A human in several seats counts once, with their best seat. An aborted game
(reason ``ABORTED``: matched, and a seat ran out of time before its first move) is
neither rated nor recorded: scoring keeps no scoresheet of it. A timeout is a loss like
any other (its rank says so).

Ratings that mean something (services/scoring/README.md, "Ratings that mean something"):
identities cost nothing (a guest token is one call), so a result counts only as far as
the opponent is someone. Each pairwise result's weight (``result_weight``) is

- by the opponent: 1 against an established player; against a provisional one, nothing
  for an established player and, for a provisional player, the share of
  ``ESTABLISHED_OPPONENTS`` distinct people the opponent had met before (a fresh
  identity: 0);
- by repetition: halved for every earlier game of the same pair within
  ``REPEAT_WINDOW`` (1, 1/2, 1/4, ...).

A game in which a person made fewer than ``MIN_MOVES`` moves rates nobody (and meets
nobody: the count of opponents and the pairs skip it); it counts in the records.

A rating is provisional while its RD is above ``ESTABLISHED_RD`` (lichess's "?") or its
player has met fewer than ``ESTABLISHED_OPPONENTS`` distinct people in rated games;
leaderboards list established players only. Every input is in the event history (the
seats, ranks and recorded times of the games before), so a rebuild folds to the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from parlor.rating import (
    Rating,
    Record,
    apply_weighted_game,
    elapsed_periods,
    idle,
    outcomes,
)
from parlor.services.scoring.sheet import FinishedGame, SeatResult

ABORTED = "ABORTED"
"""A game nobody started in time (gamehost clocks): never rated, never recorded."""
ESTABLISHED_RD = 110.0
"""Above this RD a rating is provisional (lichess shows such ratings with a "?")."""
ESTABLISHED_OPPONENTS = 5
"""Distinct people a player must have met in rated games before their rating is established,
and before a result against them counts in full for a provisional player."""
REPEAT_WINDOW = timedelta(hours=24)
"""Games of the same pair within this time of each other count less: each earlier one halves."""
MIN_MOVES = 2
"""Moves each person must have made (not counting the one that ended the game) for a game
to rate: shorter games (one move and a resignation, no move at all before running out of
time) count in the records only, as lichess aborts a game before both sides have moved."""

Pair = tuple[str, str]
"""Two player ids, the smaller first: one row of ``scoring_pairs``."""


@dataclass(frozen=True)
class PlayerScore:
    """One player's standing in one game type."""

    player_id: str
    rating: Rating
    rated: bool
    record: Record
    total_score: int
    last_played: datetime
    opponents: int = 0
    """Distinct people met in games scoring rates (whatever their weight)."""

    @property
    def provisional(self) -> bool:
        return self.rating.rd > ESTABLISHED_RD or self.opponents < ESTABLISHED_OPPONENTS


@dataclass(frozen=True)
class PairHistory:
    """How often two players met in games scoring rates, and when, lately."""

    games: int = 0
    recent: tuple[datetime, ...] = ()
    """The finish times of their games within ``REPEAT_WINDOW`` of the last one, in order."""

    def after(self, at: datetime) -> PairHistory:
        kept = tuple(t for t in self.recent if at - t < REPEAT_WINDOW)
        return PairHistory(self.games + 1, (*kept, at))

    def within(self, at: datetime) -> int:
        """Their earlier games within ``REPEAT_WINDOW`` before ``at``."""
        return sum(1 for t in self.recent if timedelta(0) <= at - t < REPEAT_WINDOW)


def humans(game: FinishedGame) -> dict[str, SeatResult]:
    """Each human once, with their best seat (lowest rank, then lowest seat)."""
    best: dict[str, SeatResult] = {}
    for result in sorted(game.results, key=lambda r: (r.rank, r.seat)):
        if not result.is_bot:
            best.setdefault(result.player_id, result)
    return best


def played_out(game: FinishedGame) -> bool:
    """Whether every person made ``MIN_MOVES`` moves (or their moves are not known)."""
    return all(r.moves is None or r.moves >= MIN_MOVES for r in game.results if not r.is_bot)


def pairs_of(game: FinishedGame) -> list[Pair]:
    """The pairs of people the game rates (none in a game that rates nobody: an aborted
    one, or one too short: ``MIN_MOVES``)."""
    if not recorded(game) or not played_out(game):
        return []
    players = sorted(humans(game))
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]


def recorded(game: FinishedGame) -> bool:
    """Whether scoring keeps the game at all: a scoresheet and records (not an abort)."""
    return game.reason != ABORTED


def trust(player: PlayerScore | None, opponent: PlayerScore | None) -> float:
    """How far a result against ``opponent`` counts for ``player`` (before the game)."""
    if opponent is not None and not opponent.provisional:
        return 1.0
    if player is not None and not player.provisional:
        return 0.0  # a provisional opponent does not move an established rating
    met = 0 if opponent is None else min(opponent.opponents, ESTABLISHED_OPPONENTS)
    return met / ESTABLISHED_OPPONENTS


def result_weight(
    player: PlayerScore | None,
    opponent: PlayerScore | None,
    history: PairHistory | None,
    at: datetime,
) -> float:
    """The weight of ``player``'s result against ``opponent`` in a game finished ``at``."""
    repeats = 0 if history is None else history.within(at)
    return trust(player, opponent) * 0.5**repeats


def score_game(
    before: Mapping[str, PlayerScore],
    game: FinishedGame,
    period: timedelta,
    pairs: Mapping[Pair, PairHistory] | None = None,
) -> tuple[dict[str, PlayerScore], dict[Pair, PairHistory]]:
    """The game's human players after it, and their pairs' histories; players missing from
    ``before`` are newcomers, pairs missing from ``pairs`` never met."""
    pairs = pairs or {}
    seated = humans(game)
    if not seated or len(game.results) < 2 or not recorded(game):
        return {}, {}
    seat_outcomes = outcomes([(f"{r.seat:03d}", r.rank) for r in game.results])
    at = game.finished_at
    aged: dict[str, Rating] = {}
    new_ratings: dict[str, Rating] = {}
    met: dict[Pair, PairHistory] = {}
    if len(seated) >= 2:
        aged = {
            player: idle(
                before[player].rating,
                elapsed_periods(before[player].last_played, at, period),
            )
            for player in seated
            if player in before
        }
    if len(seated) >= 2 and played_out(game):
        weights: dict[tuple[str, str], float] = {}  # every pair's, both ways: none missing
        for a, b in pairs_of(game):
            history = pairs.get((a, b))
            weights[(a, b)] = result_weight(before.get(a), before.get(b), history, at)
            weights[(b, a)] = result_weight(before.get(b), before.get(a), history, at)
            met[(a, b)] = (history or PairHistory()).after(at)
        new_ratings = apply_weighted_game(aged, [(p, r.rank) for p, r in seated.items()], weights)
    after: dict[str, PlayerScore] = {}
    for player, result in sorted(seated.items()):
        old = before.get(player)
        outcome = seat_outcomes[f"{result.seat:03d}"]
        if old is None:
            old = PlayerScore(player, Rating(), False, Record(), 0, at)
        first_meetings = sum(1 for (a, b) in met if player in (a, b) and (a, b) not in pairs)
        after[player] = replace(
            old,
            rating=new_ratings.get(player, aged.get(player, old.rating)),
            rated=old.rated or player in new_ratings,
            record=old.record.add(outcome),
            total_score=old.total_score + result.score,
            last_played=max(old.last_played, at),
            opponents=old.opponents + first_meetings,
        )
    return after, met


@dataclass
class Folded:
    """Every player of every game type, and every pair that met, after a fold."""

    scores: dict[tuple[str, str], PlayerScore]
    pairs: dict[tuple[str, str, str], PairHistory]


def fold(games: list[FinishedGame], period: timedelta) -> Folded:
    """Every player of every game type, from nothing, applying games by position."""
    out = Folded({}, {})
    for game in sorted(games, key=lambda g: g.position):
        kind = game.game_type
        before = {p: out.scores[(kind, p)] for p in humans(game) if (kind, p) in out.scores}
        known = {
            (a, b): out.pairs[(kind, a, b)] for a, b in pairs_of(game) if (kind, a, b) in out.pairs
        }
        scores, met = score_game(before, game, period, known)
        for player, score in scores.items():
            out.scores[(kind, player)] = score
        for (a, b), history in met.items():
            out.pairs[(kind, a, b)] = history
    return out
