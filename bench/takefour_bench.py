"""Take Four figures: engine commands/s, the removal search (brute force as the baseline on
small grids), and the bot's time to build a crossword for 8, 16 and 24 tiles.

Run: ``python bench/takefour_bench.py`` (uses /work/shared/lexicons/enable1.txt).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test kits

from kits.takefour import best_crossword_brute, choose, crc_word

from parlor.core.decider import execute, replay
from parlor.rules.takefour import (
    TAKE_FOUR,
    CreateGame,
    TakeFourCommand,
    TakeFourConfig,
    TakeFourEvent,
)
from parlor.rules.takefour.crossword import Cell, is_crossword, sub_run_words
from parlor.rules.takefour.crossword_search import WordIndex, build_crossword
from parlor.rules.takefour.removal import Removal, best_crossword
from parlor.rules.takefour.rules import attach_verdicts
from parlor.rules.takefour.tiles import LETTERS, STANDARD_TILES, faces

LEXICON = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/lexicons/enable1.txt")
HARDNESS = {spec.letter: spec.value for spec in STANDARD_TILES.letters}
VALUE = dict(HARDNESS)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def record_game(players: int, seed: int) -> list[TakeFourCommand]:
    """The commands of one random game (honor mode, pseudo-lexicon verdicts)."""
    rng = random.Random(seed)
    config = TakeFourConfig(target=100)
    commands: list[TakeFourCommand] = [CreateGame(config, tuple(f"p{i}" for i in range(players)))]
    state = TAKE_FOUR.initial_state()
    state, _ = execute(TAKE_FOUR, state, commands[0])
    while not TAKE_FOUR.is_terminal(state):
        command = choose(state, rng)
        assert command is not None
        command = attach_verdicts(state, command, crc_word)
        commands.append(command)
        state, _ = execute(TAKE_FOUR, state, command)
    return commands


def engine(players: int, games: int = 20) -> None:
    """Record random games' commands, then time deciding and applying them afresh."""
    recorded = [record_game(players, seed) for seed in range(games)]
    events: list[list[TakeFourEvent]] = []

    def run() -> None:
        events.clear()
        for commands in recorded:
            s = TAKE_FOUR.initial_state()
            game: list[TakeFourEvent] = []
            for c in commands:
                s, new = execute(TAKE_FOUR, s, c)
                game.extend(new)
            events.append(game)

    took = min(timed(run) for _ in range(3))  # best of 3: the figure least disturbed
    replay_took = min(timed(lambda: [replay(TAKE_FOUR, g) for g in events]) for _ in range(3))
    count = sum(len(c) for c in recorded)
    dones = sum(1 for c in recorded for x in c if type(x).__name__ == "CallDone")
    n_events = sum(len(g) for g in events)
    print(
        f"  {players} players, {games} games: {count:6d} commands in {took:5.2f} s = "
        f"{count / took:7.0f} commands/s (incl. {dones} Done scorings); "
        f"replay {n_events / replay_took:7.0f} events/s"
    )


def corrupt(
    letters: dict[Cell, str], rng: random.Random, changes: int
) -> tuple[dict[Cell, str], dict[Cell, int]]:
    """A crossword with ``changes`` letters swapped for random ones: a realistic bad Done."""
    bad = dict(letters)
    for cell in rng.sample(sorted(bad), min(changes, len(bad))):
        bad[cell] = rng.choice(LETTERS)
    return bad, {c: VALUE[v] for c, v in bad.items()}


def time_removal(
    search: Callable[[dict[Cell, str], dict[Cell, int], Callable[[str], bool]], Removal],
    letters: dict[Cell, str],
    values: dict[Cell, int],
    words: dict[str, bool],
) -> float:
    start = time.perf_counter()
    search(letters, values, words.__getitem__)
    return time.perf_counter() - start


def real_grid(index: WordIndex, size: int, rng: random.Random) -> dict[Cell, str]:
    while True:
        drawn = [f for f in rng.sample(faces(STANDARD_TILES), size + 4) if f != "?"][:size]
        layout, complete = build_crossword(index, drawn, 0, HARDNESS)
        if complete:
            return layout.letters


def removal(index: WordIndex) -> None:
    rng = random.Random(5)
    print("removal search on bot-built crosswords with letters changed (enable1 verdicts):")
    print("  small grids, search vs brute force (the baseline), same answers checked:")
    for size in (8, 10, 12):
        fast: list[float] = []
        slow: list[float] = []
        for _ in range(5):
            bad, values = corrupt(real_grid(index, size, rng), rng, 2)
            words = {w: w in index for w in sub_run_words(bad)}
            found = best_crossword(bad, values, words.__getitem__)
            fast.append(time_removal(best_crossword, bad, values, words))
            slow.append(time_removal(best_crossword_brute, bad, values, words))
            assert found == best_crossword_brute(bad, values, words.__getitem__)
        print(
            f"    {size:2d} tiles: search {statistics.mean(fast) * 1e3:8.2f} ms, "
            f"brute force {statistics.mean(slow) * 1e3:9.1f} ms "
            f"(x{statistics.mean(slow) / statistics.mean(fast):.0f})"
        )
    print("  realistic grids (mean / max over 8 grids each):")
    for size in (25, 35, 50):
        for changes in (1, 3, 6, size):
            times: list[float] = []
            removed: list[int] = []
            for _ in range(8):
                bad, values = corrupt(real_grid(index, size, rng), rng, changes)
                words = {w: w in index for w in sub_run_words(bad)}
                times.append(time_removal(best_crossword, bad, values, words))
                result = best_crossword(bad, values, words.__getitem__)
                assert is_crossword({c: bad[c] for c in result.kept}, words.__getitem__)
                removed.append(len(result.removed))
            print(
                f"    {size:2d} tiles, {changes:2d} letters changed: "
                f"{statistics.mean(times) * 1e3:8.2f} ms mean, {max(times) * 1e3:8.2f} ms max, "
                f"{statistics.mean(removed):4.1f} tiles removed on average"
            )


def dense(index: WordIndex) -> None:
    """Worst cases: solid blocks of random letters (no one builds these, but anyone could)."""
    print("removal search on solid blocks of random standard-set letters (worst cases):")
    letters_pool = [f for f in faces(STANDARD_TILES) if f != "?"]
    for width, height in ((5, 5), (7, 7), (6, 8), (4, 12)):
        for name, is_word in (("enable1", index.__contains__), ("50% pseudo-lexicon", _half)):
            worst = 0.0
            for seed in range(3):
                drawn = random.Random(seed).sample(letters_pool, width * height)
                grid = {(x, y): drawn[y * width + x] for x in range(width) for y in range(height)}
                values = {c: VALUE[v] for c, v in grid.items()}
                words = {w: is_word(w) for w in sub_run_words(grid)}
                worst = max(worst, time_removal(best_crossword, grid, values, words))
            print(f"  {width}x{height} ({name}): {worst * 1e3:8.1f} ms worst of 3")


def _half(word: str) -> bool:
    return zlib.crc32(word.encode()) % 2 == 0


def bot(index: WordIndex) -> None:
    print("bot: build a crossword using every tile from scratch (standard set draws, enable1):")
    for size in (8, 16, 24):
        times: list[float] = []
        complete = 0
        for seed in range(20):
            drawn = random.Random(seed).sample(faces(STANDARD_TILES), size)
            letters = [f for f in drawn if f != "?"]
            start = time.perf_counter()
            _, done = build_crossword(index, letters, size - len(letters), HARDNESS)
            times.append(time.perf_counter() - start)
            complete += done
        print(
            f"  {size:2d} tiles: {statistics.mean(times) * 1e3:7.1f} ms mean, "
            f"{max(times) * 1e3:7.1f} ms max, all tiles used in {complete}/20 draws"
        )


def main() -> None:
    print("engine (random legal play, honor mode, pseudo-lexicon, decide + evolve):")
    for players in (2, 4, 8):
        engine(players)
    took = time.perf_counter()
    index = WordIndex(LEXICON.read_text().split())
    print(f"word index: {len(index.words)} words in {time.perf_counter() - took:.2f} s")
    removal(index)
    dense(index)
    bot(index)


if __name__ == "__main__":
    main()
