"""Tickets matched per second with 10,000 waiting tickets: parlor.matching beside a naive greedy.

Both run the same rules (windows that widen with waiting, pairs within both windows,
full tables until a ticket's patience runs out, largest count first, oldest ticket
first, one seat per player) over the same tickets in the same run. The naive
baseline looks for partners by scanning every waiting ticket (O(n^2)); the pool
scans only neighbours within the window in a rating-sorted line per game type.

Run: .venv/bin/python bench/matching_bench.py [tickets]
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from parlor.matching import Policy, Pool, Round, Ticket, form_matches

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
GAME_TYPES = ("connect4x4", "upwords", "takefour")
RANGES = ((2, 2), (2, 3), (2, 4), (3, 4), (4, 4), (2, 8))


def waiting_tickets(n: int, longest_wait: timedelta, seed: int = 2026) -> list[Ticket]:
    """Random ratings (normal around 1500, sd 300), mixed ranges, waits up to ``longest_wait``."""
    rng = random.Random(seed)
    wait_ms = int(longest_wait.total_seconds() * 1000)
    tickets = []
    for i in range(n):
        low, high = rng.choice(RANGES)
        tickets.append(
            Ticket(
                id=f"t{i:05d}",
                player_id=f"p{i:05d}",
                game_type=rng.choice(GAME_TYPES),
                min_players=low,
                max_players=high,
                rating=min(3000.0, max(100.0, rng.gauss(1500.0, 300.0))),
                created_at=NOW - timedelta(milliseconds=rng.randrange(wait_ms)),
            )
        )
    return tickets


SCENARIOS = (
    (
        "wide: waits 0-120 s, window 100 + 10/s (cap 800)",
        timedelta(seconds=120),
        Policy(bot_fill_after=None),
    ),
    (
        "tight: waits 0-20 s, window 5 + 0.5/s, most want a full table",
        timedelta(seconds=20),
        Policy(window_base=5.0, window_growth=0.5, window_cap=400.0, bot_fill_after=None),
    ),
)


def naive_round(tickets: list[Ticket], now: datetime, policy: Policy) -> list[tuple[str, ...]]:
    """The same greedy rules, but every anchor scans every waiting ticket for partners."""
    queue = sorted(tickets, key=lambda t: t.priority)
    window = [policy.window(t, now) for t in queue]
    counts = [policy.counts(t, now) for t in queue]
    taken = [False] * len(queue)
    tables: list[tuple[str, ...]] = []
    for a, anchor in enumerate(queue):
        if taken[a]:
            continue
        low, high = counts[a]
        for count in range(high, low - 1, -1):
            members = [a]
            for c, candidate in enumerate(queue):
                if taken[c] or c == a or candidate.game_type != anchor.game_type:
                    continue
                if not counts[c][0] <= count <= counts[c][1]:
                    continue
                if any(queue[m].player_id == candidate.player_id for m in members):
                    continue
                if all(
                    abs(candidate.rating - queue[m].rating) <= min(window[c], window[m])
                    for m in members
                ):
                    members.append(c)
                    if len(members) == count:
                        break
            if len(members) == count:
                for m in members:
                    taken[m] = True
                tables.append(tuple(queue[m].id for m in members))
                break
    return tables


def report(name: str, matched: int, tables: int, seconds: float) -> None:
    print(
        f"{name:<28} {matched:>7,} tickets in {tables:>5,} matches  {seconds * 1000:>10.1f} ms"
        f"  {matched / seconds:>12,.0f} tickets matched/s"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    print(f"{n:,} waiting tickets, {len(GAME_TYPES)} game types, ranges {RANGES}")
    for title, longest_wait, policy in SCENARIOS:
        tickets = waiting_tickets(n, longest_wait)
        print(f"\n== {title}")
        started = time.perf_counter()
        pool = Pool.from_tickets(tickets, policy)
        loaded = time.perf_counter() - started
        started = time.perf_counter()
        round_: Round = pool.match(NOW)
        seconds = time.perf_counter() - started
        print(f"Pool.from_tickets: {loaded * 1000:.1f} ms")
        report("parlor.matching Pool.match", len(round_.matched), len(round_.matches), seconds)
        best = min(_timed(tickets, policy) for _ in range(3))
        report("  best of 3 more rounds", len(round_.matched), len(round_.matches), best)
        bots = form_matches(
            tickets,
            NOW + timedelta(seconds=60),
            replace(policy, bot_fill_after=timedelta(seconds=60)),
        )
        print(
            f"  (60 s later with bot fill: {len(bots.matched):,} tickets matched,"
            f" {sum(m.bots for m in bots.matches):,} bot seats)"
        )

        started = time.perf_counter()
        naive = naive_round(tickets, NOW, policy)
        naive_seconds = time.perf_counter() - started
        naive_matched = sum(len(t) for t in naive)
        report("naive O(n^2) greedy", naive_matched, len(naive), naive_seconds)
        ratio = (len(round_.matched) / seconds) / (naive_matched / naive_seconds)
        print(f"speed-up in tickets matched/s: {ratio:.0f}x")


def _timed(tickets: list[Ticket], policy: Policy) -> float:
    started = time.perf_counter()
    form_matches(tickets, NOW, policy)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
