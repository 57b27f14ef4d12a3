"""Pairing: who sits at which table, in which seat (docs/tournaments.md, "Pairing").

Everything here is a function of the state and the ``Pair`` command's seed, so the same
events and seed pair alike on every replica and in ``verify``. Equal ranks are ordered by a
draw from the seed (``draw``), never by the order players joined.

Two seats (a matching): players are ranked (points, then the draw); the best-ranked player
left is paired first, with the candidate its score group would give it (the player half
the group below it, the Dutch system's fold), else the nearest score; a search with
backtracking (not a greedy pass that can dead-end) tries the candidates in that order, with
the hard rules of the pass:

1. no two players meet twice, and nobody's first-seat count moves more than one from their
   second-seat count (two players who both went first more often than second never meet);
2. then, if no pairing keeps both, no two players meet twice;
3. then anything, fewest repeat meetings first.

An odd count gives a bye to the lowest-ranked player who has not had one (a Swiss) or
leaves the lowest-ranked free player waiting (an arena). The arena's rule 1 is "not the
opponent of one's last game" instead of "never twice".

More seats: tables of ``table_size`` by rank order, then improved by swapping players
between tables while it lowers the count of repeated meetings (an arena: of last
table-mates) and then the spread of points at a table.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence

from parlor.tournamentrules.queries import due, free_players
from parlor.tournamentrules.state import Tournament

Tables = tuple[tuple[str, ...], ...]
Byes = tuple[tuple[str, int], ...]

SEARCH_BUDGET = 4_000
"""Search steps a pass may take before the next, looser pass is tried."""
REPEAT = 1_000_000
"""The cost of a repeated meeting when tables are improved by swaps."""
MAX_SWAP_PASSES = 20


def draw(seed: int, player: str) -> int:
    """A player's place among equals for this seed (the same on every replica)."""
    digest = hashlib.sha256(f"{seed}/{player}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def propose(state: Tournament, at_ms: int, seed: int) -> tuple[Tables, Byes] | None:
    """The tables (players in seat order) and byes of the pairing due now, or None."""
    if due(state, at_ms) != "pair":
        return None
    history = History(state)
    settings = state.rules
    players = free_players(state) if settings.is_arena else state.active()
    ranked = sorted(players, key=lambda p: (-state.points.get(p, 0), draw(seed, p)))
    if settings.is_arena:
        if settings.table_size == 2:
            pairs = _arena_pairs(ranked, history, state)
            return tuple(history.seat(pair, seed) for pair in pairs), ()
        tables = _arena_tables(ranked, settings.table_size, history, state)
        return tuple(history.seat(t, seed) for t in tables), ()
    if settings.table_size == 2 or len(ranked) == 1:
        pairs, bye = _swiss_pairs(ranked, history, state)
        byes = ((bye, settings.bye_points),) if bye is not None else ()
        return tuple(history.seat(pair, seed) for pair in pairs), byes
    sizes = table_sizes(len(ranked), settings.table_size)
    tables = _improved(ranked, sizes, history.repeats_cost, state)
    return tuple(history.seat(t, seed) for t in tables), ()


def table_sizes(players: int, table_size: int) -> list[int]:
    """A Swiss round's tables: as few as hold everyone, as equal as can be (largest first);
    a table of one is a bye."""
    tables = -(-players // table_size)
    small, extra = divmod(players, tables)
    return [small + 1] * extra + [small] * (tables - extra)


class History:
    """What pairing needs from the games so far: meetings, seats, byes, last table-mates."""

    def __init__(self, state: Tournament) -> None:
        self.met: Counter[frozenset[str]] = Counter()
        self.seats: dict[str, Counter[int]] = {}
        self.last_seat: dict[str, int] = {}
        self.last_mates: dict[str, frozenset[str]] = {}
        for game in state.games.values():
            for i, a in enumerate(game.seats):
                self.seats.setdefault(a, Counter())[i] += 1
                self.last_seat[a] = i
                self.last_mates[a] = frozenset(game.seats) - {a}
                for b in game.seats[i + 1 :]:
                    self.met[frozenset((a, b))] += 1
        self.byes = {player for r in state.rounds for player, _ in r.byes}

    def colour(self, player: str) -> int:
        """First seats minus second seats so far."""
        seats = self.seats.get(player, Counter())
        return seats[0] - seats[1]

    def met_before(self, a: str, b: str) -> int:
        return self.met[frozenset((a, b))]

    def colours_fit(self, a: str, b: str) -> bool:
        """Pairing a and b keeps both within one of balanced first and second seats."""
        ca, cb = self.colour(a), self.colour(b)
        return not ((ca > 0 and cb > 0) or (ca < 0 and cb < 0))

    def repeats_cost(self, a: str, b: str, points: dict[str, int]) -> int:
        return self.met_before(a, b) * REPEAT + (points.get(a, 0) - points.get(b, 0)) ** 2

    def last_mates_cost(self, a: str, b: str, points: dict[str, int]) -> int:
        mates = b in self.last_mates.get(a, ()) or a in self.last_mates.get(b, ())
        return int(mates) * REPEAT + (points.get(a, 0) - points.get(b, 0)) ** 2

    def seat(self, table: Sequence[str], seed: int) -> tuple[str, ...]:
        """Seat order: at two seats, first the one who went first less often (then the one
        who went second last time, then the draw); at more, each seat in turn to whoever
        sat there least often (then the draw)."""
        if len(table) == 2:
            a, b = table

            def key(p: str) -> tuple[int, int, int]:
                return (self.colour(p), -self.last_seat.get(p, 0), draw(seed, p))

            return (a, b) if key(a) <= key(b) else (b, a)
        left = list(table)
        order: list[str] = []
        for seat in range(len(table)):
            pick = min(left, key=lambda p: (self.seats.get(p, Counter())[seat], draw(seed, p)))
            order.append(pick)
            left.remove(pick)
        return tuple(order)


Allowed = Callable[[str, str], bool]


class _OutOfBudget(Exception):
    pass


class _Search:
    """Perfect matching by backtracking: the best-ranked player left first, its candidates
    in the order ``prefer`` gives, within ``SEARCH_BUDGET`` steps."""

    def __init__(self, allowed: Allowed, prefer: Callable[[str, list[str]], list[str]]) -> None:
        self.allowed = allowed
        self.prefer = prefer
        self.steps = 0

    def pairs(self, ranked: list[str]) -> list[tuple[str, str]] | None:
        if not ranked:
            return []
        self.steps += 1
        if self.steps > SEARCH_BUDGET:
            raise _OutOfBudget
        top, rest = ranked[0], ranked[1:]
        for partner in self.prefer(top, rest):
            if not self.allowed(top, partner):
                continue
            left = [p for p in rest if p != partner]
            if any(not any(self.allowed(p, q) for q in left if q != p) for p in left[-2:]):
                continue  # the lowest-ranked left would have nobody: a dead end
            found = self.pairs(left)
            if found is not None:
                return [(top, partner), *found]
        return None


def _fold(points: dict[str, int]) -> Callable[[str, list[str]], list[str]]:
    """Candidates for ``top`` (the best-ranked left): its score group's fold first (the
    player half the group below it), then by nearest score and rank."""

    def prefer(top: str, rest: list[str]) -> list[str]:
        group = [p for p in rest if points.get(p, 0) == points.get(top, 0)]
        ideal = (len(group) + 1) // 2 - 1
        place = {p: i for i, p in enumerate(group)}

        def key(p: str) -> tuple[int, int, int]:
            far = abs(points.get(p, 0) - points.get(top, 0))
            return (far, abs(place[p] - ideal) if p in place else 0, rest.index(p))

        return sorted(rest, key=key)

    return prefer


def _nearest(top: str, rest: list[str]) -> list[str]:
    return list(rest)


def _swiss_pairs(
    ranked: list[str], history: History, state: Tournament
) -> tuple[list[tuple[str, str]], str | None]:
    points = state.points
    passes: list[Allowed] = [
        lambda a, b: not history.met_before(a, b) and history.colours_fit(a, b),
        lambda a, b: not history.met_before(a, b),
    ]
    may_bye = [p for p in reversed(ranked) if p not in history.byes]
    for allowed in passes:
        search = _Search(allowed, _fold(points))
        try:
            if len(ranked) % 2 == 0:
                found = search.pairs(ranked)
                if found is not None:
                    return found, None
                continue
            for bye in may_bye:
                found = search.pairs([p for p in ranked if p != bye])
                if found is not None:
                    return found, bye
        except _OutOfBudget:
            continue
    # Anything goes: fewest repeats first; an odd one out without a bye left sits out.
    out = None
    if len(ranked) % 2:
        out = may_bye[0] if may_bye else ranked[-1]
    left = [p for p in ranked if p != out]
    fold = _fold(points)

    def fewest(top: str, rest: list[str]) -> list[str]:
        order = fold(top, rest)
        return sorted(order, key=lambda p: history.met_before(top, p))

    found = _Search(lambda a, b: True, fewest).pairs(left)
    assert found is not None, "with anything allowed a pairing always exists"
    return found, (out if out is not None and out not in history.byes else None)


def _arena_pairs(ranked: list[str], history: History, state: Tournament) -> list[tuple[str, str]]:
    def fresh(a: str, b: str) -> bool:
        return b not in history.last_mates.get(a, ()) and a not in history.last_mates.get(b, ())

    for allowed in (fresh, lambda a, b: True):
        search = _Search(allowed, _nearest)
        try:
            if len(ranked) % 2 == 0:
                found = search.pairs(ranked)
                if found is not None:
                    return found
                continue
            for waits in reversed(ranked):
                found = search.pairs([p for p in ranked if p != waits])
                if found is not None:
                    return found
        except _OutOfBudget:
            continue
    raise AssertionError("with anything allowed a pairing always exists")


def _arena_tables(
    ranked: list[str], table_size: int, history: History, state: Tournament
) -> Tables:
    seated = ranked[: len(ranked) - len(ranked) % table_size]
    sizes = [table_size] * (len(seated) // table_size)
    return _improved(seated, sizes, history.last_mates_cost, state)


def _improved(
    ranked: list[str],
    sizes: list[int],
    cost: Callable[[str, str, dict[str, int]], int],
    state: Tournament,
) -> Tables:
    """Tables of ``sizes`` filled in rank order, then players swapped between tables while a
    swap lowers the tables' cost (the sum of ``cost`` over each table's pairs of players)."""
    tables: list[list[str]] = []
    at = 0
    for size in sizes:
        tables.append(ranked[at : at + size])
        at += size
    points = state.points

    def table_cost(table: list[str]) -> int:
        return sum(cost(a, b, points) for i, a in enumerate(table) for b in table[i + 1 :])

    costs = [table_cost(t) for t in tables]
    for _ in range(MAX_SWAP_PASSES):
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, len(tables)):
                for x in range(len(tables[i])):
                    for y in range(len(tables[j])):
                        ti, tj = list(tables[i]), list(tables[j])
                        ti[x], tj[y] = tj[y], ti[x]
                        ci, cj = table_cost(ti), table_cost(tj)
                        if ci + cj < costs[i] + costs[j]:
                            tables[i], tables[j], costs[i], costs[j] = ti, tj, ci, cj
                            improved = True
        if not improved:
            break
    return tuple(tuple(t) for t in tables)
