"""Playing whole tournaments through the decider, with results and disruptions drawn from a
test's own ``random.Random`` (the rules never draw: seeds and ids go in as commands)."""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from parlor.core.decider import execute
from parlor.tournamentrules import (
    TOURNAMENTS,
    Berserk,
    Command,
    Create,
    Finish,
    Join,
    Pair,
    Pause,
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
                        if rng.random() < berserk:
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
