"""Standings and tie-breaks (docs/tournaments.md, "Tie-breaks"), recomputed from the games.

Points are summed from the scored games and the byes (never read from a running total).
A Swiss is ordered by points, then Buchholz cut-1, Buchholz and Sonneborn-Berger; an arena
by points, then wins (more first), then games (fewer first). Players equal on all of those
share a rank (listed by id).

Tie-breaks, per round the tournament has paired, one contribution per player (0 in a round
they did not play: a bye, a pause, before a late entry, after a withdrawal, a game not yet
scored); at a table of k seats, with each other player o's final points P(o):

- Buchholz: the sum over rounds of the mean of P(o) over the other k-1 players at the table
  (at two seats: the opponent's points, as in chess);
- Buchholz cut-1: Buchholz less the player's lowest round contribution;
- Sonneborn-Berger: the sum over rounds of the mean over the other players of
  P(o) x (1 if one finished ahead of o, 1/2 on an equal place, 0 behind) (at two seats: the
  points of the opponents one beat plus half of those one drew with).

They are exact fractions, given as floats (the nearest double to the exact value).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from parlor.tournamentrules.scoring import is_win
from parlor.tournamentrules.state import REMOVED, WITHDRAWN, Tournament

BUCHHOLZ = "buchholz"
BUCHHOLZ_CUT1 = "buchholz_cut1"
SONNEBORN_BERGER = "sonneborn_berger"
WINS = "wins"
SWISS_TIE_BREAKS = (BUCHHOLZ_CUT1, BUCHHOLZ, SONNEBORN_BERGER)
"""A Swiss's tie-breaks, in the order they are applied."""


@dataclass(frozen=True)
class Standing:
    rank: int
    player: str
    points: int
    tie_breaks: tuple[tuple[str, float], ...]
    """(name, value) in the order applied: a Swiss's ``SWISS_TIE_BREAKS``, an arena's wins."""
    games: int
    """Games scored (byes not counted)."""
    is_bot: bool
    withdrawn: bool
    """Withdrew after the start, or removed."""
    status: str
    """ACTIVE, PAUSED, WITHDRAWN or REMOVED."""
    byes: int = 0
    wins: int = 0


def points_from_games(state: Tournament) -> dict[str, int]:
    """Each entrant's points: their scored games' points plus their byes'."""
    points = dict.fromkeys(state.entrants, 0)
    for game in state.games.values():
        for player, _, gained, _, _ in game.scores:
            points[player] = points.get(player, 0) + gained
    for number in state.rounds:
        for player, bye in number.byes:
            points[player] = points.get(player, 0) + bye
    return points


def tie_breaks(state: Tournament, points: dict[str, int]) -> dict[str, dict[str, Fraction]]:
    """Each entrant's Buchholz, Buchholz cut-1 and Sonneborn-Berger, exactly."""
    contributions: dict[str, list[Fraction]] = {p: [] for p in state.entrants}
    berger: dict[str, Fraction] = {p: Fraction(0) for p in state.entrants}
    played: dict[tuple[int, str], tuple[Fraction, Fraction]] = {}
    for game in state.games.values():
        if not game.scored:
            continue
        places = {player: place for player, place, *_ in game.scores}
        others = len(game.seats) - 1
        for p in game.seats:
            strength = Fraction(0)
            beaten = Fraction(0)
            for o in game.seats:
                if o == p:
                    continue
                strength += points.get(o, 0)
                if places[p] < places[o]:
                    beaten += points.get(o, 0)
                elif places[p] == places[o]:
                    beaten += Fraction(points.get(o, 0), 2)
            played[(game.round, p)] = (strength / others, beaten / others)
    for player in state.entrants:
        for number in state.rounds:
            buch, sb = played.get((number.number, player), (Fraction(0), Fraction(0)))
            contributions[player].append(buch)
            berger[player] += sb
    result: dict[str, dict[str, Fraction]] = {}
    for player, parts in contributions.items():
        total = sum(parts, Fraction(0))
        result[player] = {
            BUCHHOLZ: total,
            BUCHHOLZ_CUT1: total - min(parts) if parts else total,
            SONNEBORN_BERGER: berger[player],
        }
    return result


def standings(state: Tournament) -> list[Standing]:
    """Every entrant (withdrawn and removed ones flagged), best first."""
    if state.settings is None:
        return []
    points = points_from_games(state)
    games = dict.fromkeys(state.entrants, 0)
    wins = dict.fromkeys(state.entrants, 0)
    for game in state.games.values():
        places = {player: place for player, place, *_ in game.scores}
        for player in places:
            games[player] += 1
            wins[player] += int(is_win(places, player))
    byes = dict.fromkeys(state.entrants, 0)
    for number in state.rounds:
        for player, _ in number.byes:
            byes[player] += 1
    keys: dict[str, tuple[object, ...]] = {}
    breaks: dict[str, tuple[tuple[str, float], ...]] = {}
    if state.rules.is_swiss:
        exact = tie_breaks(state, points)
        for p in state.entrants:
            values = tuple(exact[p][name] for name in SWISS_TIE_BREAKS)
            keys[p] = (-points[p], *(-v for v in values))
            breaks[p] = tuple(
                (name, float(v)) for name, v in zip(SWISS_TIE_BREAKS, values, strict=True)
            )
    else:
        for p in state.entrants:
            keys[p] = (-points[p], -wins[p], games[p])
            breaks[p] = ((WINS, float(wins[p])),)
    order = sorted(state.entrants, key=lambda p: (keys[p], p))
    table: list[Standing] = []
    for i, p in enumerate(order):
        rank = table[-1].rank if table and keys[order[i - 1]] == keys[p] else i + 1
        entrant = state.entrants[p]
        table.append(
            Standing(
                rank=rank,
                player=p,
                points=points[p],
                tie_breaks=breaks[p],
                games=games[p],
                is_bot=entrant.is_bot,
                withdrawn=entrant.status in (WITHDRAWN, REMOVED),
                status=entrant.status,
                byes=byes[p],
                wins=wins[p],
            )
        )
    return table
