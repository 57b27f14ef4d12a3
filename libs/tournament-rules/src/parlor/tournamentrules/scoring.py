"""Points for one finished game (docs/tournaments.md, "Scoring").

- Places: a table of k seats uses the last k numbers of ``points_by_place`` (default
  ``2 * (k - place)``: 2 for each player one finishes ahead of, so win 2 / draw 1 / loss 0
  at two seats). Players on equal places share the points of the places they span, averaged
  and rounded down (a two-seat draw: (2 + 0) / 2 = 1 each).
- A win is place 1 alone; a shared place 1 is not a win.
- Arena streak: a player who won their two previous games scores double (points times 2) in the
  next, and on while they keep winning; any non-win ends the streak.
- Arena berserk: a berserk player who wins a game of at least ``berserk_min_moves`` moves
  scores 1 more (never doubled).
"""

from __future__ import annotations

from collections.abc import Mapping

from parlor.tournamentrules.settings import Settings
from parlor.tournamentrules.state import Game, Tournament

STREAK = 2
"""Wins in a row after which points double."""


def place_points(settings: Settings, places: Mapping[str, int]) -> dict[str, int]:
    """Each player's points by place at a table of ``len(places)``, shared places averaged."""
    scale = settings.scale(len(places))
    ordered = sorted(places.values())
    points: dict[str, int] = {}
    for player, place in places.items():
        first = ordered.index(place)
        span = ordered.count(place)
        points[player] = sum(scale[first : first + span]) // span
    return points


def is_win(places: Mapping[str, int], player: str) -> bool:
    return places[player] == 1 and sum(1 for p in places.values() if p == 1) == 1


def score(
    state: Tournament, game: Game, places: Mapping[str, int], moves: int
) -> tuple[tuple[str, int, int, bool, bool], ...]:
    """Per seat, in seat order: (player, place, points, doubled, berserk bonus)."""
    settings = state.rules
    base = place_points(settings, places)
    scores = []
    for player in game.seats:
        points = base[player]
        doubled = settings.is_arena and state.streak.get(player, 0) >= STREAK
        if doubled:
            points *= 2
        bonus = (
            settings.is_arena
            and player in game.berserk
            and is_win(places, player)
            and moves >= settings.berserk_min_moves
        )
        scores.append((player, places[player], points + int(bonus), doubled, bonus))
    return tuple(scores)


def berserk_clock(settings: Settings) -> tuple[int, int]:
    """A berserk seat's clock, (initial ms, increment ms), as lichess sets it: half the
    initial time and no increment (the service applies it to the seat's clock)."""
    return settings.clock_initial_ms // 2, 0
