"""Replay figures: rebuilding a 1,000-move game's state, and 1,000 events from PostgreSQL.

1. Take Four (the game type with long games): a random 2-player game played to its end
   with at least 1,000 moves (commands), then its whole event history folded from the
   initial state — the state rebuilt in memory. Target: under 50 ms.
2. The same Take Four game stored in PostgreSQL with the Take Four service's protobuf codec
   (one stream of its events), then read + decode + fold, as the service replays it:
   the whole path from the store to the state. Target: under 50 ms.
3. Connect 4x4 from PostgreSQL: whole random games (≤ 84 moves each, so about a dozen)
   stored back to back in ONE stream of 1,000 events with the service's protobuf codec,
   then read + decode + fold (each game folded from its own start), beside the raw
   psycopg ``SELECT`` of the same rows as the baseline measured in the same run.

Run: ``python bench/replay_bench.py [--rounds 30]`` (finds or starts PostgreSQL like the
tests do, on a scratch database dropped afterwards). Figures are medians over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test kits

from kits.takefour import choose, crc_word

from parlor.core.decider import execute, replay
from parlor.devinfra.backends import find_backends, scratch_database
from parlor.devinfra.scratch import scratch_name
from parlor.eventstore import NO_STREAM, NewEvent, PostgresEventStore, migrate
from parlor.gamehost.table.seating import OpenTable, SeatsTaken
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.rules.takefour import TAKE_FOUR, CreateGame, TakeFourConfig
from parlor.rules.takefour.rules import attach_verdicts
from parlor.services.connect4x4.game import Codec, rules
from parlor.services.takefour.game import Codec as TakeFourCodec

EVENTS = 1_000
MOVES = 1_000


def median_ms(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def amedian_ms(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def take_four_game(min_moves: int, seed: int = 7) -> tuple[int, list[Any]]:
    """A random Take Four game of at least ``min_moves`` commands: (moves, events)."""
    target = 400
    while True:
        rng = random.Random(seed)
        state, events = execute(
            TAKE_FOUR,
            TAKE_FOUR.initial_state(),
            CreateGame(TakeFourConfig(target=target), ("a", "b")),
        )
        history = list(events)
        moves = 0
        while not TAKE_FOUR.is_terminal(state):
            command = attach_verdicts(state, choose(state, rng), crc_word)
            state, events = execute(TAKE_FOUR, state, command)
            history += events
            moves += 1
        if moves >= min_moves:
            return moves, history
        target = int(target * 1.3)


def connect4x4_games(events: int, seed: int = 11) -> list[list[Any]]:
    """Whole random Connect 4x4 games (seats and GameFinished included), about ``events``."""
    table = rules()
    rng = random.Random(seed)
    games: list[list[Any]] = []
    total = 0
    while total < events:
        opened = OpenTable((Seat("a"), Seat("b")), c4.CreateGame(c4.Config(2)))
        history: list[Any] = list(table.decide(table.initial_state(), opened))
        state = table.replay(history)
        while not table.is_terminal(state):
            history += table.decide(state, rng.choice(c4.legal_moves(state.game)))
            state = table.replay(history)
        games.append(history)
        total += len(history)
    return games


def fold_games(events: list[Any]) -> Any:
    """Fold back-to-back games: each ``SeatsTaken`` starts a fresh game."""
    table = rules()
    state = table.initial_state()
    for event in events:
        if isinstance(event, SeatsTaken):
            state = table.initial_state()
        state = table.evolve(state, event)
    return state


async def from_postgres(url: str, rounds: int) -> None:
    await migrate(url)
    codec = Codec()
    games = connect4x4_games(EVENTS)
    events = [e for game in games for e in game][:EVENTS]
    stream = f"connect4x4bench-{uuid.uuid4().hex}"
    store = PostgresEventStore(url)
    try:
        encoded = [NewEvent(*codec.encode(e)) for e in events]
        await store.append(stream, encoded, expected_version=NO_STREAM)
        records = await store.read_stream(stream)
        assert len(records) == EVENTS

        raw_sql = (
            "SELECT stream_id, version, position, type, data, schema_version, command_id, actor,"
            " causation_id, correlation_id, extra, recorded_at FROM events"
            " WHERE stream_id = %s AND version >= 0 ORDER BY version"
        )
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:

            async def raw() -> None:
                async with conn.cursor(binary=True) as cursor:
                    await cursor.execute(raw_sql, (stream,), prepare=True)
                    rows = await cursor.fetchall()
                    assert len(rows) == EVENTS

            raw_ms = await amedian_ms(raw, rounds)

        async def read() -> None:
            assert len(await store.read_stream(stream)) == EVENTS

        read_ms = await amedian_ms(read, rounds)
        decoded: list[Any] = []

        def decode() -> None:
            decoded[:] = [codec.decode(r.type, r.data) for r in records]

        decode_ms = median_ms(decode, rounds)
        assert decoded == events
        fold_ms = median_ms(lambda: fold_games(decoded), rounds)

        async def everything() -> None:
            got = await store.read_stream(stream)
            fold_games([codec.decode(r.type, r.data) for r in got])

        total_ms = await amedian_ms(everything, rounds)
    finally:
        await store.close()
    print(
        f"Connect 4x4 from PostgreSQL: one stream of {EVENTS} events"
        f" ({len(games)} whole games back to back), median of {rounds}"
    )
    print(f"  baseline raw psycopg SELECT of the rows   {raw_ms:8.2f} ms")
    print(f"  read   (store.read_stream)                {read_ms:8.2f} ms")
    print(f"  decode (protobuf -> domain events)        {decode_ms:8.2f} ms")
    print(f"  fold   (evolve from each game's start)    {fold_ms:8.2f} ms")
    print(
        f"  read + decode + fold, measured together   {total_ms:8.2f} ms"
        f"  ({'under' if total_ms < 50 else 'OVER'} the 50 ms target)"
    )
    print(f"  fold throughput                           {EVENTS / fold_ms * 1000:8,.0f} events/s")


async def take_four_from_postgres(url: str, rounds: int) -> None:
    await migrate(url)
    codec = TakeFourCodec()
    moves, events = take_four_game(MOVES)
    stream = f"takefourbench-{uuid.uuid4().hex}"
    store = PostgresEventStore(url)
    try:
        await store.append(
            stream, [NewEvent(*codec.encode(e)) for e in events], expected_version=NO_STREAM
        )
        final = replay(TAKE_FOUR, events)

        async def everything() -> None:
            got = await store.read_stream(stream)
            state = replay(TAKE_FOUR, [codec.decode(r.type, r.data) for r in got])
            assert state == final

        total_ms = await amedian_ms(everything, rounds)
        read_ms = await amedian_ms(lambda: store.read_stream(stream), rounds)
    finally:
        await store.close()
    print(
        f"Take Four from PostgreSQL: the same game of {moves} moves ({len(events)} events)"
        f" in one stream, the service's codec, median of {rounds}"
    )
    print(f"  read   (store.read_stream)                {read_ms:8.2f} ms")
    print(
        f"  read + decode + fold to the final state   {total_ms:8.2f} ms"
        f"  ({'under' if total_ms < 50 else 'OVER'} the 50 ms target)"
    )


def engine(rounds: int) -> None:
    moves, events = take_four_game(MOVES)
    final = replay(TAKE_FOUR, events)
    assert TAKE_FOUR.is_terminal(final)
    fold_ms = median_ms(lambda: replay(TAKE_FOUR, events), rounds)
    print(
        f"Take Four: one random game of {moves} moves ({len(events)} events) to its end,"
        f" median of {rounds}"
    )
    print(
        f"  state rebuilt (fold of every event)       {fold_ms:8.2f} ms"
        f"  ({'under' if fold_ms < 50 else 'OVER'} the 50 ms target)"
    )
    print(
        f"  fold throughput                           {len(events) / fold_ms * 1000:8,.0f} events/s"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    engine(args.rounds)
    with (
        find_backends(("settings", "local", "embedded")) as backends,
        scratch_database(backends.database_url, scratch_name("bench")) as url,
    ):
        await take_four_from_postgres(url, args.rounds)
        await from_postgres(url, args.rounds)


if __name__ == "__main__":
    asyncio.run(main())
