"""Tournaments for tests: whole tournaments played through the rules' decider, with results
and disruptions drawn from a test's own ``random.Random`` (the rules never draw: seeds and
ids go in as commands), and reference recomputations written apart from the library:
standings and tie-breaks from an export (``recomputed``), arena points from the history
(``arena_points``), as docs/tournaments.md and docs/tournament-tie-breaks.md define them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from random import Random
from typing import Any

from parlor.core.decider import execute
from parlor.tournamentrules import (
    TOURNAMENTS,
    Berserk,
    Command,
    Create,
    Finish,
    GameScored,
    Join,
    Pair,
    Pause,
    PlayerBerserked,
    RecordResult,
    Rejoin,
    Settings,
    Start,
    Tournament,
    TournamentEvent,
    Withdraw,
    due,
    games_in_play,
    tables_needed,
)


@dataclass
class Run:
    state: Tournament
    events: list[TournamentEvent] = field(default_factory=list)
    ids: int = 0

    def do(self, command: Command) -> None:
        self.state, events = execute(TOURNAMENTS, self.state, command)
        self.events.extend(events)

    def pair(self, at_ms: int, rng: Random) -> None:
        needed = tables_needed(self.state)
        ids = tuple(f"g{self.ids + n}" for n in range(needed + 1))
        self.ids += needed + 1
        self.do(Pair(at_ms, ids, rng.randrange(2**31)))


def places(seats: tuple[str, ...], rng: Random, draws: float = 0.15) -> tuple[tuple[str, int], ...]:
    """A random result: sometimes all share place 1 (a draw), else a random order with the
    occasional shared place."""
    if rng.random() < draws:
        return tuple((p, 1) for p in seats)
    order = list(seats)
    rng.shuffle(order)
    result: list[tuple[str, int]] = []
    for i, player in enumerate(order):
        shared = i > 0 and rng.random() < 0.1
        result.append((player, result[-1][1] if shared else i + 1))
    return tuple(result)


def started(settings: Settings, players: list[str], bots: set[str] | None = None) -> Run:
    run = Run(TOURNAMENTS.initial_state())
    run.do(Create(settings, "org", 0))
    for player in players:
        run.do(Join(player, player in (bots or set()), 1))
    run.do(Start("org", 2))
    return run


def swiss(
    settings: Settings,
    entrants: int,
    rng: Random,
    *,
    withdrawals: int = 0,
    late: int = 0,
    pauses: int = 0,
) -> Run:
    """A whole Swiss: between rounds, up to ``withdrawals`` players withdraw, ``late``
    players join (while late entry is open) and ``pauses`` pause for a round."""
    run = started(settings, [f"p{n}" for n in range(entrants)], bots={"p1", "p3"})
    at = 10
    newcomers = [f"late{n}" for n in range(late)]
    paused: list[str] = []
    while True:
        at += 10
        for player in paused:
            run.do(Rejoin(player, at))
        paused = []
        step = due(run.state, at)
        if step == "finish":
            run.do(Finish(at))
            return run
        assert step == "pair"
        if withdrawals and rng.random() < 0.5:
            run.do(Withdraw(rng.choice(run.state.active()), at))
            withdrawals -= 1
        if newcomers and rng.random() < 0.5 and _late_open(run.state):
            run.do(Join(newcomers.pop(), False, at))
        if pauses and rng.random() < 0.3 and len(run.state.active()) > 2:
            player = rng.choice(run.state.active())
            run.do(Pause(player, at))
            paused.append(player)
            pauses -= 1
        if due(run.state, at) == "finish":
            continue
        run.pair(at, rng)
        for game in games_in_play(run.state):
            at += 1
            run.do(RecordResult(game.game_id, places(game.seats, rng), rng.randint(0, 40), at))


def _late_open(state: Tournament) -> bool:
    return len(state.rounds) < state.rules.late_entry_until_round


def arena(
    settings: Settings,
    entrants: int,
    rng: Random,
    *,
    berserk: float = 0.2,
    pauses: int = 0,
    late: int = 0,
) -> Run:
    """A whole arena: games end at random times; a player may go berserk, pause and rejoin;
    ``late`` players join while it runs."""
    run = started(settings, [f"p{n}" for n in range(entrants)], bots={"p0"})
    at = 2
    ends = run.state.arena_ends_at_ms
    finishing: dict[str, int] = {}
    paused: dict[str, int] = {}
    newcomers = [f"late{n}" for n in range(late)]
    while True:
        if due(run.state, at) == "pair":
            run.pair(at, rng)
            for game in games_in_play(run.state):
                if game.game_id not in finishing:
                    finishing[game.game_id] = at + rng.randint(500, 5_000)
                    for player in game.seats:
                        if settings.berserk and rng.random() < berserk:
                            run.do(Berserk(player, game.game_id, at))
        if due(run.state, at) == "finish":
            run.do(Finish(at))
            return run
        events = [(t, "game", g) for g, t in finishing.items()]
        events += [(t, "rejoin", p) for p, t in paused.items()]
        if newcomers and at < ends:
            events.append((at + rng.randint(100, 3_000), "join", newcomers[-1]))
        if at < ends:
            events.append((ends, "time", ""))  # nothing else to wait for
        when, kind, who = min(events)
        at = max(at, when)
        if kind == "game":
            del finishing[who]
            seats = run.state.games[who].seats
            run.do(RecordResult(who, places(seats, rng), rng.randint(0, 20), at))
            if pauses and rng.random() < 0.2 and seats[0] in run.state.active():
                run.do(Pause(seats[0], at))
                paused[seats[0]] = at + rng.randint(100, 4_000)
                pauses -= 1
        elif kind == "rejoin":
            del paused[who]
            run.do(Rejoin(who, at))
        elif kind == "join":
            newcomers.pop()
            if at < ends:
                run.do(Join(who, False, at))


def recomputed(export: dict[str, Any]) -> dict[str, tuple[int, Fraction, Fraction, Fraction]]:
    """Points, Buchholz cut-1, Buchholz and Sonneborn-Berger from the exported pairings and
    results alone, as docs/tournaments.md defines them (default scale: 2 points for each
    player finished ahead of, 1 for each on an equal place)."""
    players = [s["player"] for s in export["standings"]]
    points = dict.fromkeys(players, 0)
    games: list[tuple[int, dict[str, int]]] = []
    for r in export["rounds"]:
        for bye in r["byes"]:
            points[bye["player"]] += bye["points"]
        for table in r["tables"]:
            if table["result"] is None:
                continue
            places = {x["player"]: x["place"] for x in table["result"]}
            games.append((r["round"], places))
            for p, mine in places.items():
                ahead = sum(1 for o, theirs in places.items() if o != p and mine < theirs)
                level = sum(1 for o, theirs in places.items() if o != p and mine == theirs)
                points[p] += 2 * ahead + level
    rounds = [r["round"] for r in export["rounds"]]
    buchholz: dict[str, dict[int, Fraction]] = {
        p: dict.fromkeys(rounds, Fraction(0)) for p in players
    }
    berger = dict.fromkeys(players, Fraction(0))
    for number, places in games:
        for p in places:
            others = [o for o in places if o != p]
            buchholz[p][number] = Fraction(sum(points[o] for o in others), len(others))
            earned = Fraction(0)
            for o in others:
                if places[p] < places[o]:
                    earned += points[o]
                elif places[p] == places[o]:
                    earned += Fraction(points[o], 2)
            berger[p] += earned / len(others)
    result = {}
    for p in players:
        contributions = list(buchholz[p].values())
        total = sum(contributions, Fraction(0))
        cut = total - min(contributions) if contributions else total
        result[p] = (points[p], cut, total, berger[p])
    return result


def arena_points(events: list[TournamentEvent], min_moves: int) -> dict[str, int]:
    """Each player's arena points from the history alone: win 2 / draw 1 / loss 0, doubled
    after two wins in a row until a non-win, +1 for a berserk win of enough moves."""
    wins_in_row: Counter[str] = Counter()
    berserk: set[tuple[str, str]] = set()
    points: Counter[str] = Counter()
    for event in events:
        if isinstance(event, PlayerBerserked):
            berserk.add((event.player, event.game_id))
        if isinstance(event, GameScored):
            places = {player: place for player, place, *_ in event.scores}
            for p, mine in places.items():
                theirs = [v for o, v in places.items() if o != p]
                won = all(mine < v for v in theirs)
                base = 2 if won else (1 if mine == theirs[0] else 0)
                gained = base * 2 if wins_in_row[p] >= 2 else base
                if won and (p, event.game_id) in berserk and event.moves >= min_moves:
                    gained += 1
                points[p] += gained
                wins_in_row[p] = wins_in_row[p] + 1 if won else 0
    return dict(points)


def assert_standings_recomputed(export: dict[str, Any]) -> None:
    """A Swiss's exported standings: points and tie-breaks equal to ``recomputed``, players
    in its order, ranks from 1 and never falling."""
    expected = recomputed(export)
    for standing in export["standings"]:
        points, cut, total, berger = expected[standing["player"]]
        assert standing["points"] == points, standing
        assert standing["tie_breaks"] == {
            "buchholz_cut1": float(cut),
            "buchholz": float(total),
            "sonneborn_berger": float(berger),
        }, standing
    order = sorted(expected, key=lambda p: (*(-v for v in expected[p]), p))
    assert [s["player"] for s in export["standings"]] == order
    ranks = [s["rank"] for s in export["standings"]]
    assert ranks == sorted(ranks)
    assert ranks[0] == 1
