"""Tickets matched per second with 10,000 waiting tickets, through matchmaking's database round.

The service's path: per game type, one transaction takes the round's advisory lock,
locks the waiting tickets (``SELECT ... FOR UPDATE SKIP LOCKED``), forms the round
with parlor.matching, marks tickets matched, inserts matches and their seats, and
appends one ``MatchFormed`` per match to the event store, then commits. Beside it,
in the same run and on the same tickets, the pure library's ``Pool.match`` alone.
Each figure is the median of ``--rounds`` runs; every run starts from the same
10,000 fresh waiting tickets on a scratch database.

Run: .venv/bin/python bench/matchmaking_bench.py [--tickets 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
import uuid
from datetime import datetime, timedelta

import psycopg

from parlor.devinfra.backends import find_backends, scratch_database
from parlor.devinfra.scratch import scratch_name
from parlor.eventstore import PostgresEventStore, migrate
from parlor.matching import Policy, Pool, Ticket
from parlor.services.matchmaking.migrate import migrate as migrate_matchmaking
from parlor.services.matchmaking.rounds import Rounds

GAME_TYPES = ("connect4x4", "upwords", "takefour")
RANGES = {
    "connect4x4": ((2, 2), (2, 3), (2, 4), (3, 4), (4, 4)),
    "upwords": ((2, 2), (2, 3), (2, 4), (3, 4), (4, 4)),
    "takefour": ((2, 2), (2, 4), (3, 4), (2, 8), (4, 8)),
}
LONGEST_WAIT = timedelta(seconds=120)
# The matching bench's "wide" scenario: windows 100 + 10/s (cap 800), no bots.
POLICY = Policy(bot_fill_after=None)


def waiting_tickets(n: int, now: datetime, seed: int) -> list[Ticket]:
    """Ratings normal around 1500 (sd 300), mixed ranges, waits up to two minutes."""
    rng = random.Random(seed)
    tickets = []
    for i in range(n):
        game = rng.choice(GAME_TYPES)
        low, high = rng.choice(RANGES[game])
        tickets.append(
            Ticket(
                id=uuid.UUID(int=rng.getrandbits(128)).hex,
                player_id=f"p{seed}-{i:05d}",
                game_type=game,
                min_players=low,
                max_players=high,
                rating=min(3000.0, max(100.0, rng.gauss(1500.0, 300.0))),
                created_at=now - timedelta(milliseconds=rng.randrange(120_000)),
            )
        )
    return tickets


async def load(url: str, tickets: list[Ticket]) -> None:
    """A fresh table of waiting tickets (COPY), and no matches or events from the last run."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "TRUNCATE mm_match_players, mm_matches, mm_tickets, mm_lobbies, events, event_commands"
        )
        async with conn.cursor().copy(
            "COPY mm_tickets (ticket_id, player_id, display_name, game_type, min_players,"
            " max_players, rating, created_at) FROM STDIN"
        ) as copy:
            for t in tickets:
                await copy.write_row(
                    (
                        t.id,
                        t.player_id,
                        t.player_id,
                        t.game_type,
                        t.min_players,
                        t.max_players,
                        t.rating,
                        t.created_at,
                    )
                )
        await conn.execute("ANALYZE mm_tickets")


async def db_now(url: str) -> datetime:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        row = await (await conn.execute("SELECT clock_timestamp()")).fetchone()
    assert row is not None
    return row[0]  # type: ignore[no-any-return]


async def service_run(
    url: str, store: PostgresEventStore, tickets: list[Ticket]
) -> tuple[float, int, int]:
    """Seconds for one database round per game type; tickets matched; matches formed."""
    await load(url, tickets)
    rounds = Rounds(store, POLICY)
    started = time.perf_counter()
    matched = formed = 0
    for game in GAME_TYPES:
        outcome = await rounds.run(game)
        assert outcome is not None
        round_, _ = outcome
        matched += len(round_.matched)
        formed += len(round_.matches)
    return time.perf_counter() - started, matched, formed


def pure_run(tickets: list[Ticket], now: datetime) -> tuple[float, int]:
    started = time.perf_counter()
    round_ = Pool.from_tickets(tickets, POLICY).match(now)
    return time.perf_counter() - started, len(round_.matched)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickets", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with (
        find_backends() as backends,
        scratch_database(backends.database_url, scratch_name("bench")) as url,
    ):
        await migrate(url)
        await migrate_matchmaking(url)
        store = PostgresEventStore(url, pool_size=4)
        try:
            now = await db_now(url)
            tickets = waiting_tickets(args.tickets, now, seed=2026)
            service: list[tuple[float, int, int]] = []
            pure: list[tuple[float, int]] = []
            for _ in range(args.rounds):
                # Alternate, so load from elsewhere hits both alike.
                pure.append(pure_run(tickets, await db_now(url)))
                service.append(await service_run(url, store, tickets))
        finally:
            await store.close()
    s_seconds = statistics.median(s for s, _, _ in service)
    s_matched = service[0][1]
    s_formed = service[0][2]
    p_seconds = statistics.median(s for s, _ in pure)
    p_matched = pure[0][1]
    print(f"matchmaking round with {args.tickets:,} waiting tickets (median of {args.rounds})")
    print(f"{'path':<44}{'seconds':>9}{'matched':>9}{'tickets/s':>12}")
    print(
        f"{'service: DB round (lock, match, persist)':<44}{s_seconds:>9.3f}{s_matched:>9,}"
        f"{s_matched / s_seconds:>12,.0f}"
    )
    print(
        f"{'library: Pool.match alone':<44}{p_seconds:>9.3f}{p_matched:>9,}"
        f"{p_matched / p_seconds:>12,.0f}"
    )
    print(f"matches formed (MatchFormed appended) per service run: {s_formed:,}")
    print(f"persistence overhead: {s_seconds / p_seconds:.1f}x the pure round")


if __name__ == "__main__":
    asyncio.run(main())
