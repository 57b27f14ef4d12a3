"""Upwords benchmark: bot move generation on mid-game boards, and engine throughput.

Run: ``.venv/bin/python bench/upwords_bench.py [--lexicon PATH] [--games N]``.
Mid-game positions come from bot-vs-bot games (seeded shuffles, ENABLE), taken
between turns 6 and 20. Baselines measured in the same run:
- a brute-force generator (every set of up to 3 squares in a line, every order
  of the rack, each checked by the engine) against the DAWG generator with the
  same 3-tile racks on the same boards;
- one plain pass over the whole word list per move (a lower bound for any
  generator that scans the lexicon word by word).
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections import Counter
from pathlib import Path

from parlor.core.decider import replay
from parlor.core.errors import ParlorError
from parlor.rules.upwords import (
    UPWORDS,
    Board,
    Command,
    CreateGame,
    Event,
    Exchange,
    Pass,
    Placement,
    Play,
    UpwordsConfig,
    UpwordsState,
    check_play,
    exchange_positions,
    full_bag,
    view,
    words_formed,
)
from parlor.rules.upwords.board import SIZE
from parlor.rules.upwords.bot import BotExchange, BotPlay, UpwordsBot
from parlor.rules.upwords.dawg import Dawg


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def play_game(
    bot: UpwordsBot, seed: int
) -> tuple[list[Command], list[Event], list[tuple[Board, tuple[str, ...]]]]:
    """One bot-vs-bot game: its commands, events and mid-game positions."""
    rng = random.Random(seed)
    draw, bag = list(full_bag()), list(full_bag())
    rng.shuffle(draw)
    rng.shuffle(bag)
    commands: list[Command] = [CreateGame(UpwordsConfig(), ("a", "b"), tuple(draw), tuple(bag))]
    state: UpwordsState = UPWORDS.initial_state()
    events: list[Event] = []
    positions: list[tuple[Board, tuple[str, ...]]] = []
    turn = 0
    while True:
        command = commands[-1]
        new = UPWORDS.decide(state, command)
        events.extend(new)
        state = replay(UPWORDS, new, state)
        if UPWORDS.is_terminal(state):
            return commands, events, positions
        seat = state.to_move
        if 6 <= turn <= 20:
            positions.append((state.board, state.racks[seat]))
        move = bot.choose(view(state, seat))
        if isinstance(move, BotPlay):
            bare = Play(seat, move.placements)
            commands.append(
                Play(seat, move.placements, dict.fromkeys(words_formed(state, bare), True))
            )
        elif isinstance(move, BotExchange):
            commands.append(Exchange(seat, move.tile, rng.randrange(exchange_positions(state))))
        else:
            commands.append(Pass(seat))
        turn += 1


def brute_force(board: Board, rack: tuple[str, ...], lexicon: Dawg) -> int:
    """Count legal plays by trying every square set and tile order (the baseline)."""
    lines = [[(i, j) for j in range(SIZE)] for i in range(SIZE)]
    lines += [[(j, i) for j in range(SIZE)] for i in range(SIZE)]
    found: set[frozenset[Placement]] = set()
    for line in lines:
        for k in range(1, len(rack) + 1):
            for spots in itertools.combinations(line, k):
                for letters in set(itertools.permutations(rack, k)):
                    placements = [
                        Placement(r, c, t) for (r, c), t in zip(spots, letters, strict=True)
                    ]
                    try:
                        check = check_play(board, rack, placements)
                    except ParlorError:
                        continue
                    if all(w in lexicon for w in check.texts):
                        found.add(frozenset(placements))
    return len(found)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lexicon", default="/work/shared/lexicons/enable1.txt")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument(
        "--brute", type=int, default=5, help="positions for the brute-force baseline"
    )
    args = parser.parse_args()

    t0 = time.perf_counter()
    words = Path(args.lexicon).read_text().split()
    lexicon = Dawg(words)
    build = time.perf_counter() - t0
    print(f"lexicon: {len(lexicon)} words, DAWG {lexicon.nodes} nodes, built in {build:.2f} s")
    bot = UpwordsBot(lexicon)

    games = [play_game(bot, seed) for seed in range(args.games)]
    positions = [p for _, _, ps in games for p in ps]

    timings: list[float] = []
    counts: list[int] = []
    for board, rack in positions:
        t = time.perf_counter()
        plays = bot.plays(board, rack)
        timings.append(time.perf_counter() - t)
        counts.append(len(plays))
    ms = [x * 1000 for x in timings]
    print(
        f"bot move generation, all plays, {len(ms)} mid-game positions (7-tile racks): "
        f"p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
        f"max {max(ms):.1f} ms; plays per position median {statistics.median(counts):.0f}"
    )
    best_ms = []
    for board, rack in positions:
        t = time.perf_counter()
        bot.best_play(board, rack)
        best_ms.append((time.perf_counter() - t) * 1000)
    print(
        f"bot best play: p50 {percentile(best_ms, 0.5):.1f} ms, "
        f"p99 {percentile(best_ms, 0.99):.1f} ms"
    )

    # Baseline 1: brute force vs DAWG generator, same boards, 3-tile racks.
    sample = positions[:: max(1, len(positions) // args.brute)][: args.brute]
    brute_s, dawg_s = [], []
    for board, rack in sample:
        short = rack[:3]
        t = time.perf_counter()
        n_brute = brute_force(board, short, lexicon)
        brute_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        n_dawg = len(bot.plays(board, short))
        dawg_s.append(time.perf_counter() - t)
        assert n_brute == n_dawg, (n_brute, n_dawg)
    print(
        f"baseline brute force (3-tile racks, {len(sample)} boards, same play sets): "
        f"mean {statistics.mean(brute_s) * 1000:.0f} ms vs DAWG "
        f"{statistics.mean(dawg_s) * 1000:.2f} ms "
        f"(x{statistics.mean(brute_s) / statistics.mean(dawg_s):.0f})"
    )

    # Baseline 2: one pass over the word list, testing each word against rack + board letters.
    scan = []
    for board, rack in positions[:20]:
        letters = Counter(rack) + Counter(t for s in board.stacks for t in s[-1:])
        t = time.perf_counter()
        fit = sum(1 for w in lexicon.words if not Counter(w.upper()) - letters)
        scan.append(time.perf_counter() - t)
    print(
        f"baseline lexicon scan (one pass, letter-count test only): "
        f"mean {statistics.mean(scan) * 1000:.0f} ms per move ({fit} words fit the last)"
    )

    # Engine throughput: decide + evolve of every recorded command; evolve-only replay.
    all_commands = [c for cs, _, _ in games for c in cs]
    t = time.perf_counter()
    rounds = 5
    for _ in range(rounds):
        for commands, _, _ in games:
            state = UPWORDS.initial_state()
            for command in commands:
                state = replay(UPWORDS, UPWORDS.decide(state, command), state)
    elapsed = time.perf_counter() - t
    print(
        f"engine decide+evolve: {rounds * len(all_commands) / elapsed:,.0f} commands/s "
        f"({len(all_commands)} commands in {len(games)} games, incl. word listing and checks)"
    )
    all_events = [e for _, es, _ in games for e in es]
    t = time.perf_counter()
    for _ in range(rounds):
        for _, events, _ in games:
            replay(UPWORDS, events)
    elapsed = time.perf_counter() - t
    print(f"engine replay (evolve only): {rounds * len(all_events) / elapsed:,.0f} events/s")


if __name__ == "__main__":
    main()
