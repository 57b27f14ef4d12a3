"""Connect 4x4 engine speed: moves/s, win checks/s against a naive board, bot move times.

Run: ``python bench/connect4x4_bench.py [--games N]``. Prints figures only; the
naive list-of-lists win check is measured in the same run as the baseline, and
both checks are compared on every position so the speed-up is of equal work.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from parlor.rules.connect4x4 import (
    COLUMNS,
    ROWS,
    CheckerDropped,
    Command,
    Config,
    CreateGame,
    Event,
    Side,
    State,
    decide,
    evolve,
    initial_state,
    is_terminal,
    legal_moves,
)
from parlor.rules.connect4x4.board import any_line, bit_index, line_through
from parlor.rules.connect4x4.bot import DEFAULT_BUDGET, Level, choose_move

NaiveBoard = list[list[list[int | None]]]  # [side][column][row] -> seat or None


def naive_board(state: State) -> NaiveBoard:
    """The same position as lists of lists, the way a first implementation would hold it."""
    board: NaiveBoard = [[[None] * ROWS for _ in range(COLUMNS)] for _ in range(2)]
    for side in (Side.FRONT, Side.BACK):
        for seat in range(state.players):
            bits = state.checkers(seat, side)
            for column in range(COLUMNS):
                for row in range(ROWS):
                    if bits >> bit_index(column, row) & 1:
                        board[side.index][column][row] = seat
    return board


def naive_line_through(board: NaiveBoard, seat: int, column: int, row: int) -> bool:
    """Walk out from the new checker in the four directions, counting positions the seat holds."""

    def holds(c: int, r: int) -> bool:
        return 0 <= c < COLUMNS and 0 <= r < ROWS and seat in (board[0][c][r], board[1][c][r])

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while holds(c, r):
                count += 1
                c, r = c + sign * dc, r + sign * dr
        if count >= 4:
            return True
    return False


def naive_any_line(board: NaiveBoard, seat: int) -> bool:
    """Scan every window of four of the front view."""
    for column in range(COLUMNS):
        for row in range(ROWS):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                if all(
                    0 <= column + k * dc < COLUMNS
                    and 0 <= row + k * dr < ROWS
                    and seat
                    in (
                        board[0][column + k * dc][row + k * dr],
                        board[1][column + k * dc][row + k * dr],
                    )
                    for k in range(4)
                ):
                    return True
    return False


def random_games(count: int, rng: random.Random) -> list[tuple[Config, list[Command]]]:
    games: list[tuple[Config, list[Command]]] = []
    for game in range(count):
        config = Config(players=2 + game % 3)
        state = initial_state()
        for event in decide(state, CreateGame(config)):
            state = evolve(state, event)
        commands: list[Command] = []
        while not is_terminal(state):
            move = rng.choice(legal_moves(state))
            commands.append(move)
            for event in decide(state, move):
                state = evolve(state, event)
        games.append((config, commands))
    return games


def engine_moves_per_second(games: list[tuple[Config, list[Command]]]) -> tuple[float, float]:
    """Replays the recorded commands: (decide+evolve moves/s, evolve-only events/s)."""
    moves = 0
    recorded: list[list[Event]] = []
    start = time.perf_counter()
    for config, commands in games:
        state = initial_state()
        events: list[Event] = []
        for command in [CreateGame(config), *commands]:
            new = decide(state, command)
            for event in new:
                state = evolve(state, event)
            events.extend(new)
            moves += 1
        recorded.append(events)
    decided = moves / (time.perf_counter() - start)
    count = 0
    start = time.perf_counter()
    for events in recorded:
        state = initial_state()
        for past in events:
            state = evolve(state, past)
            count += 1
    return decided, count / (time.perf_counter() - start)


def positions_with_last_move(
    games: list[tuple[Config, list[Command]]],
) -> list[tuple[State, int, int, int]]:
    """Every state after a checker drop, with the mover and where the checker landed."""
    found: list[tuple[State, int, int, int]] = []
    for config, commands in games:
        state = initial_state()
        for command in [CreateGame(config), *commands]:
            for event in decide(state, command):
                state = evolve(state, event)
                if isinstance(event, CheckerDropped):
                    found.append((state, event.seat, event.column, event.row))
    return found


def rate(work: Callable[[], int]) -> float:
    start = time.perf_counter()
    done = work()
    return done / (time.perf_counter() - start)


def win_checks(samples: list[tuple[State, int, int, int]]) -> None:
    boards = [naive_board(state) for state, _, _, _ in samples]
    pieces = [state.line_pieces(seat) for state, seat, _, _ in samples]
    for (_state, seat, column, row), board, mine in zip(samples, boards, pieces, strict=True):
        fast = bool(line_through(mine, bit_index(column, row)))
        assert fast == naive_line_through(board, seat, column, row), "the two checks disagree"
        assert bool(any_line(mine)) == naive_any_line(board, seat), "the two scans disagree"
    rounds = 20

    def bitboard_through() -> int:
        for _ in range(rounds):
            for (_s, _seat, column, row), mine in zip(samples, pieces, strict=True):
                line_through(mine, column * 7 + row)
        return rounds * len(samples)

    def naive_through() -> int:
        for _ in range(rounds):
            for (_s, seat, column, row), board in zip(samples, boards, strict=True):
                naive_line_through(board, seat, column, row)
        return rounds * len(samples)

    def bitboard_scan() -> int:
        for mine in pieces:
            any_line(mine)
        return len(samples)

    def naive_scan() -> int:
        for (_s, seat, _c, _r), board in zip(samples, boards, strict=True):
            naive_any_line(board, seat)
        return len(samples)

    through, walk = rate(bitboard_through), rate(naive_through)
    print(f"win check through the last checker ({len(samples)} positions, front|back union):")
    print(f"  bitboard line masks : {through:>12,.0f} checks/s")
    print(f"  naive lists (walk)  : {walk:>12,.0f} checks/s   speed-up x{through / walk:.1f}")
    scan, naive = rate(bitboard_scan), rate(naive_scan)
    print("win check over the whole board (all 69 windows):")
    print(f"  bitboard line masks : {scan:>12,.0f} checks/s")
    print(f"  naive lists (scan)  : {naive:>12,.0f} checks/s   speed-up x{scan / naive:.1f}")


def bot_times(samples: list[State], rng: random.Random) -> None:
    print(f"bot move time ({len(samples)} mid-game positions, 2-4 players):")
    for label, level, budget in (
        ("random", Level.RANDOM, DEFAULT_BUDGET),
        ("greedy", Level.GREEDY, DEFAULT_BUDGET),
        ("strong (300 nodes)", Level.STRONG, 300),
        (f"strong ({DEFAULT_BUDGET} nodes, default)", Level.STRONG, DEFAULT_BUDGET),
    ):
        times = []
        for state in samples:
            start = time.perf_counter()
            choose_move(state, level, rng, budget=budget)
            times.append(time.perf_counter() - start)
        print(
            f"  {label:<28}: mean {statistics.mean(times) * 1000:8.2f} ms"
            f"   max {max(times) * 1000:8.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=600, help="random games to play")
    parser.add_argument("--positions", type=int, default=5000, help="positions for win checks")
    parser.add_argument("--bot-positions", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(20261130)
    games = random_games(args.games, rng)
    moves = sum(len(commands) for _, commands in games)
    decided, evolved = engine_moves_per_second(games)
    print(f"engine ({args.games} random games of 2, 3 and 4 players, {moves} moves):")
    print(f"  decide + evolve     : {decided:>12,.0f} moves/s")
    print(f"  evolve only (replay): {evolved:>12,.0f} events/s")
    samples = positions_with_last_move(games)
    win_checks(rng.sample(samples, min(args.positions, len(samples))))
    mid_game = [state for state, _, _, _ in samples if 8 <= state.moves <= 20 and not state.over]
    bot_times(rng.sample(mid_game, min(args.bot_positions, len(mid_game))), rng)


if __name__ == "__main__":
    main()
