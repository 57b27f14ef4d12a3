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

An odd count gives a bye to the lowest-ranked player who has not had one (a Swiss).

An arena pairs its free players in rank order, nearest rank first, as many pairs as can be
made without anyone meeting the opponent of their last game again; the others (the
lowest-ranked when the count is odd) wait for the next wave. Two players rematch at once
only when they are the only active players left.

More seats: tables of ``table_size`` by rank order; then, while a table holds a repeated
meeting (an arena: players who sat together in their last game), one of its players is
swapped with a player of another table if that lowers the total cost (repeats weigh far
more than the spread of points at a table).
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Sequence

from parlor.tournamentrules.state import RUNNING, Tournament

Tables = tuple[tuple[str, ...], ...]
Byes = tuple[tuple[str, int], ...]

SEARCH_BUDGET = 4_000
"""Search steps a pass may take before the next, looser pass is tried."""
REPEAT = 1_000_000
"""The cost of a repeated meeting when tables are improved by swaps."""
MAX_SWAPS_PER_TABLE = 50


def draw(seed: int, player: str) -> int:
    """A player's place among equals for this seed (the same on every replica)."""
    digest = hashlib.sha256(f"{seed}/{player}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def propose(state: Tournament, at_ms: int, seed: int) -> tuple[Tables, Byes] | None:
    """The tables (players in seat order) and byes of the pairing due now, or None."""
    if state.phase != RUNNING:
        return None
    settings = state.rules
    if settings.is_arena:
        if at_ms >= state.arena_ends_at_ms or not arena_can_pair(state):
            return None
    elif state.in_play or len(state.rounds) >= settings.rounds or not state.active():
        return None
    players = state.free() if settings.is_arena else state.active()
    history = History(state, players)
    ranked = sorted(players, key=lambda p: (-state.points.get(p, 0), draw(seed, p)))
    if settings.is_arena:
        if settings.table_size == 2:
            pairs = _arena_pairs(ranked, history, state)
            if not pairs:
                return None
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


def arena_can_pair(state: Tournament) -> bool:
    """An arena's free players make at least one table by its rules."""
    free = state.free()
    size = state.rules.table_size
    if len(free) < size:
        return False
    if size > 2:
        return True
    history = History(state, free)
    if len(free) == 2 and len(state.active()) == 2:
        return True
    return any(history.fresh(a, b) for i, a in enumerate(free) for b in free[i + 1 :])


def table_sizes(players: int, table_size: int) -> list[int]:
    """A Swiss round's tables: as few as hold everyone, as equal as can be (largest first);
    a table of one is a bye."""
    tables = -(-players // table_size)
    small, extra = divmod(players, tables)
    return [small + 1] * extra + [small] * (tables - extra)


class History:
    """What pairing needs from the games so far: meetings, seats, byes, last table-mates."""

    def __init__(self, state: Tournament, players: list[str]) -> None:
        """The history of ``players`` (only theirs is read: an arena's wave is small)."""
        self.state = state
        self.players = players
        self.seats: dict[str, Counter[int]] = {}
        self.last_seat: dict[str, int] = {}
        self.last_mates: dict[str, frozenset[str]] = {}
        for a in players:
            seats = self.seats.setdefault(a, Counter())
            games = state.player_games.get(a, ())
            for game_id in games:
                seats[state.games[game_id].seats.index(a)] += 1
            if games:
                last = state.games[games[-1]].seats
                self.last_seat[a] = last.index(a)
                self.last_mates[a] = frozenset(last) - {a}

    @functools.cached_property
    def met(self) -> Counter[frozenset[str]]:
        """How often each two of the players sat at one table."""
        met: Counter[frozenset[str]] = Counter()
        for a in self.players:
            for game_id in self.state.player_games.get(a, ()):
                for b in self.state.games[game_id].seats:
                    if b != a and b in self.seats:
                        met[frozenset((a, b))] += 1
        return Counter({pair: n // 2 for pair, n in met.items()})  # counted from both sides

    @functools.cached_property
    def byes(self) -> set[str]:
        return {player for r in self.state.rounds for player, _ in r.byes}

    def fresh(self, a: str, b: str) -> bool:
        """Neither met the other in their last game."""
        return b not in self.last_mates.get(a, ()) and a not in self.last_mates.get(b, ())

    @functools.cached_property
    def colours(self) -> dict[str, int]:
        """First seats minus second seats so far, per player."""
        return {p: seats[0] - seats[1] for p, seats in self.seats.items()}

    def colour(self, player: str) -> int:
        return self.colours[player]

    def met_before(self, a: str, b: str) -> int:
        return self.met[frozenset((a, b))]

    def colours_fit(self, a: str, b: str) -> bool:
        """Pairing a and b keeps both within one of balanced first and second seats."""
        product = self.colours[a] * self.colours[b]
        return product <= 0

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
    in the order ``prefer`` gives, within ``SEARCH_BUDGET`` steps. A branch is cut as soon
    as a player left has no allowed partner left, or ``balanced`` says the players left
    cannot all be paired."""

    def __init__(
        self,
        players: list[str],
        allowed: Allowed,
        prefer: Callable[[str, list[str]], list[str]],
        balanced: Callable[[list[str]], bool] = lambda left: True,
    ) -> None:
        self.partners = {a: {b for b in players if b != a and allowed(a, b)} for a in players}
        self.prefer = prefer
        self.balanced = balanced
        self.steps = 0

    def pairs(self, ranked: list[str], waiting: int = 0) -> list[tuple[str, str]] | None:
        """Pairs of all of ``ranked`` but exactly ``waiting`` players, or None."""
        if len(ranked) <= waiting:
            return [] if len(ranked) == waiting else None
        self.steps += 1
        if self.steps > SEARCH_BUDGET:
            raise _OutOfBudget
        top, rest = ranked[0], ranked[1:]
        mine = self.partners[top]
        for partner in self.prefer(top, [p for p in rest if p in mine]):
            left = [p for p in rest if p != partner]
            if not waiting:
                others = set(left)
                if not self.balanced(left) or any(
                    self.partners[p].isdisjoint(others) for p in left
                ):
                    continue  # someone left would have nobody: a dead end
            found = self.pairs(left, waiting)
            if found is not None:
                return [(top, partner), *found]
        if waiting:
            return self.pairs(rest, waiting - 1)  # the best-ranked left waits
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

    def colours_can_fit(left: list[str]) -> bool:
        """No more players due a second seat (or a first) than there are pairs."""
        due_second = sum(1 for p in left if history.colour(p) > 0)
        due_first = sum(1 for p in left if history.colour(p) < 0)
        return max(due_second, due_first) <= len(left) // 2

    passes: list[tuple[Allowed, Callable[[list[str]], bool]]] = [
        (
            lambda a, b: not history.met_before(a, b) and history.colours_fit(a, b),
            colours_can_fit,
        ),
        (lambda a, b: not history.met_before(a, b), lambda left: True),
    ]
    may_bye = [p for p in reversed(ranked) if p not in history.byes]
    for allowed, balanced in passes:
        search = _Search(ranked, allowed, _fold(points), balanced)
        try:
            if len(ranked) % 2 == 0:
                found = search.pairs(ranked) if balanced(ranked) else None
                if found is not None:
                    return found, None
                continue
            for bye in may_bye:
                left = [p for p in ranked if p != bye]
                found = search.pairs(left) if balanced(left) else None
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

    found = _Search(left, lambda a, b: True, fewest).pairs(left)
    assert found is not None, "with anything allowed a pairing always exists"
    return found, (out if out is not None and out not in history.byes else None)


def _arena_pairs(ranked: list[str], history: History, state: Tournament) -> list[tuple[str, str]]:
    """As many pairs as can be made without a player meeting their last opponent again (the
    others wait for the next wave); a rematch only when those two are all who are left."""

    for waiting in range(len(ranked) % 2, len(ranked) - 1, 2):
        try:
            found = _Search(ranked, history.fresh, _nearest).pairs(ranked, waiting)
        except _OutOfBudget:
            continue
        if found is not None:
            return found
    if len(ranked) == 2 and len(state.active()) == 2:
        return [(ranked[0], ranked[1])]
    return []


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
    """Tables of ``sizes`` filled in rank order; then, while a table holds a pair whose
    ``cost`` is a repeat's, the first swap of one of its players with a player of another
    table that lowers the total cost (the sum of ``cost`` over each table's pairs) is made,
    at most ``MAX_SWAPS_PER_TABLE`` per table."""
    tables: list[list[str]] = []
    at = 0
    for size in sizes:
        tables.append(ranked[at : at + size])
        at += size
    points = state.points
    known: dict[tuple[str, str], int] = {}

    def pair_cost(a: str, b: str) -> int:
        key = (a, b) if a < b else (b, a)
        if key not in known:
            known[key] = cost(a, b, points)
        return known[key]

    def burden(player: str, table: list[str], leaving: str) -> int:
        return sum(pair_cost(player, b) for b in table if b not in (leaving, player))

    def swap() -> bool:
        for i, here in enumerate(tables):
            if all(pair_cost(a, b) < REPEAT for n, a in enumerate(here) for b in here[n + 1 :]):
                continue
            for x_at, x in enumerate(here):
                for j, there in enumerate(tables):
                    if j == i:
                        continue
                    for y_at, y in enumerate(there):
                        delta = (
                            burden(y, here, x)
                            - burden(x, here, x)
                            + burden(x, there, y)
                            - burden(y, there, y)
                        )
                        if delta < 0:
                            here[x_at], there[y_at] = y, x
                            return True
        return False

    for _ in range(MAX_SWAPS_PER_TABLE * len(tables)):
        if not swap():
            break
    return tuple(tuple(t) for t in tables)
