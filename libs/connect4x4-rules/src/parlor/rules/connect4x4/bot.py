"""Computer players: random, greedy and strong, pure and deterministic for a given rng.

The strong bot searches with iterative-deepening alpha-beta, a transposition
table and a heuristic over the open windows of four; with 3 or 4 players it is
paranoid (every opponent plays against it). Its effort is a node budget, never
a clock, so the same state and rng always give the same move.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Final

from parlor.core.errors import InvalidArgument, RuleViolation
from parlor.rules.connect4x4.board import COLUMNS, LINES, ROWS, STRIDE, Side, line_through
from parlor.rules.connect4x4.commands import DropBlocker, DropChecker, Move
from parlor.rules.connect4x4.state import State, Status


class Level(enum.Enum):
    RANDOM = "random"
    GREEDY = "greedy"
    STRONG = "strong"


DEFAULT_BUDGET: Final = 4_000
"""Nodes the strong bot may visit per move: well under a second in CPython."""

MAX_DEPTH: Final = 12
WIN: Final = 1_000_000
_WINDOW_WEIGHT: Final = (0, 1, 5, 25, 0)
_COLUMN_ORDER: Final = (3, 2, 4, 1, 5, 0, 6)
# A search move is an int: side * COLUMNS + column for a checker, 2 * COLUMNS + column for a
# blocker.
_BLOCKER_BASE: Final = 2 * COLUMNS
_ORDERED_MOVES: Final = tuple(
    [side * COLUMNS + c for c in _COLUMN_ORDER for side in (0, 1)]
    + [_BLOCKER_BASE + c for c in _COLUMN_ORDER]
)
_EXACT, _LOWER, _UPPER = 0, 1, 2


def choose_move(
    state: State, level: Level | str, rng: random.Random, *, budget: int = DEFAULT_BUDGET
) -> Move:
    """The move the seat on turn plays at this level; ``rng`` breaks every tie."""
    if state.status is not Status.IN_PROGRESS:
        raise RuleViolation("GAME_OVER", "there is no move to choose: the game is not running")
    try:
        chosen = Level(level)
    except ValueError:
        raise InvalidArgument(f"no bot level {level!r}", reason="INVALID_BOT_LEVEL") from None
    board = _Board.of(state)
    seat = state.turn
    moves = board.moves(seat)
    if not moves:
        raise RuleViolation("NO_LEGAL_MOVES", f"seat {seat} has no legal move")
    if chosen is Level.RANDOM:
        move = rng.choice(moves)
    elif chosen is Level.GREEDY:
        move = _greedy(board, seat, moves, rng)
    else:
        move = _Search(board, seat, budget).best(moves, rng)
    return _command(seat, move)


def _command(seat: int, move: int) -> Move:
    if move >= _BLOCKER_BASE:
        return DropBlocker(seat, move - _BLOCKER_BASE)
    return DropChecker(seat, move % COLUMNS, Side.FRONT if move < COLUMNS else Side.BACK)


def _greedy(board: _Board, seat: int, moves: list[int], rng: random.Random) -> int:
    winning = [m for m in moves if board.wins(seat, m)]
    if winning:
        return rng.choice(winning)
    opponents = [s for s in board.active_seats() if s != seat]
    if any(board.winning_moves(s) for s in opponents):
        safe = []
        for m in moves:
            undo = board.play(seat, m)
            if not any(board.winning_moves(s) for s in opponents):
                safe.append(m)
            board.undo(undo)
        if safe:
            return rng.choice(safe)
    return rng.choice(moves)


@dataclass(slots=True)
class _Board:
    """A mutable copy of the position for search: play and undo instead of rebuilding state."""

    players: int
    count_blockers: bool
    pieces: list[int]  # per seat, the positions counting for its lines (front | back)
    blockers: list[int]
    filled: list[int]  # per side, every cell holding something (checker, blocker, dead)
    heights: list[int]
    checkers_left: list[int]
    blockers_left: list[int]
    active: list[bool]

    @classmethod
    def of(cls, state: State) -> _Board:
        return cls(
            players=state.players,
            count_blockers=state.config.blockers_count_toward_lines,
            pieces=[state.front[s] | state.back[s] for s in range(state.players)],
            blockers=list(state.blockers),
            filled=[state.filled(Side.FRONT), state.filled(Side.BACK)],
            heights=list(state.heights),
            checkers_left=list(state.checkers_left),
            blockers_left=list(state.blockers_left),
            active=[not state.is_out(seat) for seat in range(state.players)],
        )

    def active_seats(self) -> list[int]:
        return [s for s in range(self.players) if self.active[s]]

    def next_seat(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if self.active[candidate]:
                return candidate
        return seat

    def line_pieces(self, seat: int) -> int:
        if self.count_blockers:
            return self.pieces[seat] | self.blockers[seat]
        return self.pieces[seat]

    def moves(self, seat: int) -> list[int]:
        heights = self.heights
        found: list[int] = []
        if self.checkers_left[seat]:
            found.extend(m for m in _ORDERED_MOVES[: 2 * COLUMNS] if heights[m] < ROWS)
        if self.blockers_left[seat]:
            found.extend(
                m
                for m in _ORDERED_MOVES[2 * COLUMNS :]
                if heights[m - _BLOCKER_BASE] < ROWS and heights[m - COLUMNS] < ROWS
            )
        return found

    def _landing(self, move: int) -> int:
        """The bit index where a move lands (a blocker: the higher channel)."""
        if move >= _BLOCKER_BASE:
            column = move - _BLOCKER_BASE
            row = max(self.heights[column], self.heights[COLUMNS + column])
        else:
            column = move % COLUMNS
            row = self.heights[move]
        return column * STRIDE + row

    def wins(self, seat: int, move: int) -> bool:
        if move >= _BLOCKER_BASE and not self.count_blockers:
            return False
        index = self._landing(move)
        return bool(line_through(self.line_pieces(seat) | 1 << index, index))

    def winning_moves(self, seat: int) -> list[int]:
        return [m for m in self.moves(seat) if self.wins(seat, m)]

    def play(self, seat: int, move: int) -> tuple[int, ...]:
        """Make the move; returns what ``undo`` needs."""
        heights, filled = self.heights, self.filled
        if move < _BLOCKER_BASE:
            side, column = divmod(move, COLUMNS)
            b = 1 << (column * STRIDE + heights[move])
            saved: tuple[int, ...] = (seat, move, self.pieces[seat], filled[side], heights[move])
            self.pieces[seat] |= b
            filled[side] |= b
            heights[move] += 1
            self.checkers_left[seat] -= 1
            return saved
        column = move - _BLOCKER_BASE
        front, back = heights[column], heights[COLUMNS + column]
        row = max(front, back)
        shift = column * STRIDE
        saved = (seat, move, self.blockers[seat], filled[0], filled[1], front, back)
        top = 1 << (row + 1)
        filled[0] |= (top - (1 << front)) << shift
        filled[1] |= (top - (1 << back)) << shift
        self.blockers[seat] |= 1 << (shift + row)
        heights[column] = heights[COLUMNS + column] = row + 1
        self.blockers_left[seat] -= 1
        return saved

    def undo(self, saved: tuple[int, ...]) -> None:
        seat, move = saved[0], saved[1]
        if move < _BLOCKER_BASE:
            self.pieces[seat], self.filled[move // COLUMNS], self.heights[move] = saved[2:]
            self.checkers_left[seat] += 1
            return
        column = move - _BLOCKER_BASE
        self.blockers[seat], self.filled[0], self.filled[1] = saved[2:5]
        self.heights[column], self.heights[COLUMNS + column] = saved[5:]
        self.blockers_left[seat] += 1

    def out_of_checkers(self) -> bool:
        return all(self.checkers_left[s] == 0 for s in range(self.players) if self.active[s])

    def score(self, seat: int) -> int:
        """How promising the open windows are for a seat: more checkers in them, better."""
        mine = self.line_pieces(seat)
        closed = self.filled[0] & self.filled[1] & ~mine
        total = 0
        for window in LINES:
            if not window & closed:
                total += _WINDOW_WEIGHT[(window & mine).bit_count()]
        return total

    def evaluate(self, me: int) -> int:
        others = [self.score(s) for s in range(self.players) if s != me and self.active[s]]
        return self.score(me) - (max(others) if others else 0)

    def key(self, seat: int) -> tuple[int, ...]:
        return (seat, *self.filled, *self.pieces, *self.blockers)


class _OutOfBudget(Exception):
    pass


class _Search:
    """Paranoid alpha-beta: the bot maximises, every other seat minimises."""

    def __init__(self, board: _Board, me: int, budget: int) -> None:
        self.board = board
        self.me = me
        self.budget = max(1, budget)
        self.nodes = 0
        self.table: dict[tuple[int, ...], tuple[int, int, int, int]] = {}

    def best(self, moves: list[int], rng: random.Random) -> int:
        board, me = self.board, self.me
        winning = [m for m in moves if board.wins(me, m)]
        if winning:
            return rng.choice(winning)
        root = list(moves)
        rng.shuffle(root)
        root.sort(key=_ORDERED_MOVES.index)  # stable: the shuffle breaks ties between equals
        best = root[0]
        for depth in range(1, MAX_DEPTH + 1):
            try:
                value, move = self._root(root, depth)
            except _OutOfBudget:
                break
            best = move
            root.remove(move)
            root.insert(0, move)
            if abs(value) >= WIN - MAX_DEPTH - 1:
                break
        return best

    def _root(self, moves: list[int], depth: int) -> tuple[int, int]:
        board, me = self.board, self.me
        alpha, beta = -WIN - 1, WIN + 1
        best_value, best_move = -WIN - 1, moves[0]
        for move in moves:
            saved = board.play(me, move)
            try:
                value = self._value(board.next_seat(me), depth - 1, alpha, beta, 1)
            finally:
                board.undo(saved)
            if value > best_value:
                best_value, best_move = value, move
            alpha = max(alpha, value)
        return best_value, best_move

    def _value(self, seat: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        board = self.board
        if board.out_of_checkers():
            return 0
        moves = board.moves(seat)
        if not moves:
            for _ in range(board.players):
                seat = board.next_seat(seat)
                moves = board.moves(seat)
                if moves:
                    break
            else:
                return 0
        maximizing = seat == self.me
        for move in moves:
            if board.wins(seat, move):
                return WIN - ply if maximizing else ply - WIN
        if depth <= 0:
            return board.evaluate(self.me)
        key = board.key(seat)
        entry = self.table.get(key)
        if entry is not None:
            stored_depth, stored_value, flag, stored_move = entry
            if stored_depth >= depth:
                if flag == _EXACT:
                    return stored_value
                if flag == _LOWER:
                    alpha = max(alpha, stored_value)
                else:
                    beta = min(beta, stored_value)
                if alpha >= beta:
                    return stored_value
            if stored_move in moves:
                moves.remove(stored_move)
                moves.insert(0, stored_move)
        low, high = alpha, beta
        following = board.next_seat(seat)
        best_move = moves[0]
        best_value = -WIN - 1 if maximizing else WIN + 1
        for move in moves:
            saved = board.play(seat, move)
            try:
                value = self._value(following, depth - 1, alpha, beta, ply + 1)
            finally:
                board.undo(saved)
            if maximizing:
                if value > best_value:
                    best_value, best_move = value, move
                alpha = max(alpha, value)
            else:
                if value < best_value:
                    best_value, best_move = value, move
                beta = min(beta, value)
            if alpha >= beta:
                break
        if best_value <= low:
            flag = _UPPER
        elif best_value >= high:
            flag = _LOWER
        else:
            flag = _EXACT
        self.table[key] = (depth, best_value, flag, best_move)
        return best_value
