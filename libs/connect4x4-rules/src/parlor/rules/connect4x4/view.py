"""What a player or spectator sees, and the text picture of both sides for a terminal.

Connect 4x4 hides nothing, so every viewer gets the same view; ``view`` still
is the one place a service asks, as for the games that do hide things.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from parlor.core.game import TIMED_OUT
from parlor.rules.connect4x4.board import (
    COLUMN_LETTERS,
    COLUMNS,
    ROWS,
    STRIDE,
    Position,
    Side,
    bit,
)
from parlor.rules.connect4x4.commands import MAX_PLAYERS, Config
from parlor.rules.connect4x4.game import DROPS, legal_drops
from parlor.rules.connect4x4.notation import format_move
from parlor.rules.connect4x4.state import State, Status

SEAT_SYMBOLS = "RYGB"  # red, yellow, green, blue: the colours of the box
BLOCKER_SYMBOL = "#"
DEAD_SYMBOL = "~"
EMPTY_SYMBOL = "."


class Content(enum.Enum):
    EMPTY = "empty"
    CHECKER = "checker"
    BLOCKER = "blocker"
    DEAD = "dead"


@dataclass(frozen=True, slots=True)
class Hole:
    """What one cell holds; ``seat`` owns the checker or blocker."""

    content: Content
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class GameView:
    """The whole public picture of a game; ``front[column][row]`` and ``back`` alike."""

    viewer: int | None
    config: Config
    status: Status
    turn: int | None
    front: tuple[tuple[Hole, ...], ...]
    back: tuple[tuple[Hole, ...], ...]
    checkers_left: tuple[int, ...]
    blockers_left: tuple[int, ...]
    resigned: tuple[bool, ...]
    winner: int | None
    line: tuple[Position, ...]
    end_reason: str | None
    legal_moves: tuple[str, ...]
    moves: int


def hole(state: State, column: int, row: int, side: Side) -> Hole:
    b = bit(column, row)
    for seat in range(state.players):
        if state.checkers(seat, side) & b:
            return _CHECKERS[seat]
        if state.blockers[seat] & b:
            return _BLOCKERS[seat]
    if state.dead(side) & b:
        return _DEAD
    return _EMPTY


# Holes are values: every view shares these (a view is built per version, and its 84
# holes were its largest cost when each was a new object).
_EMPTY = Hole(Content.EMPTY)
_DEAD = Hole(Content.DEAD)
_CHECKERS = tuple(Hole(Content.CHECKER, seat) for seat in range(MAX_PLAYERS))
_BLOCKERS = tuple(Hole(Content.BLOCKER, seat) for seat in range(MAX_PLAYERS))
_EMPTY_SIDE = tuple(tuple(_EMPTY for _ in range(ROWS)) for _ in range(COLUMNS))
_NOTATION = tuple(format_move(move) for move in DROPS[0])
"""Each drop's notation, by its place in ``DROPS`` (the seat is not part of it)."""
_SHIFTS = tuple(column * STRIDE for column in range(COLUMNS))


_COLUMN_BITS = (1 << ROWS) - 1
_KEPT = 65536
_columns: dict[tuple[int, ...], tuple[Hole, ...]] = {}
"""Columns by what each layer (below) holds in them: a board's columns recur from view to
view, so each is built once and views share it (``_column_symbols`` knows it by identity)."""


def _column(layers: tuple[Hole, ...], bits: tuple[int, ...]) -> tuple[Hole, ...]:
    """The column whose rows ``bits`` (per layer) fill: each row the first layer's hole."""
    found = _columns.get(bits)
    if found is None:
        found = tuple(
            next((h for h, b in zip(layers, bits, strict=True) if b >> row & 1), _EMPTY)
            for row in range(ROWS)
        )
        if len(_columns) < _KEPT:
            _columns[bits] = found
    return found


def _side(state: State, side: Side) -> tuple[tuple[Hole, ...], ...]:
    """One side's holes, ``[column][row]``: what ``hole`` says of each (its order of
    layers: seat by seat their checkers then their blockers, then dead cells)."""
    holes: list[Hole] = []
    layers: list[int] = []
    for seat in range(state.players):
        holes += (_CHECKERS[seat], _BLOCKERS[seat])
        layers += (state.checkers(seat, side), state.blockers[seat])
    holes.append(_DEAD)
    layers.append(state.dead(side))
    if not any(layers):
        return _EMPTY_SIDE
    kinds = tuple(holes)
    # each layer's bits column by column, zipped into each column's bits layer by layer
    per_layer = [[bits >> shift & _COLUMN_BITS for shift in _SHIFTS] for bits in layers]
    return tuple([_column(kinds, bits) for bits in zip(*per_layer, strict=True)])


def view(state: State, viewer: int | None = None) -> GameView:
    """The view for a seat (or a spectator, ``None``): the same for all, nothing is hidden."""
    started = state.status is not Status.NOT_STARTED
    return GameView(
        viewer=viewer,
        config=state.config,
        status=state.status,
        turn=state.turn if state.status is Status.IN_PROGRESS else None,
        front=_side(state, Side.FRONT) if started else _EMPTY_SIDE,
        back=_side(state, Side.BACK) if started else _EMPTY_SIDE,
        checkers_left=state.checkers_left,
        blockers_left=state.blockers_left,
        resigned=tuple(state.has_resigned(seat) for seat in range(state.players)),
        winner=state.winner,
        line=state.line,
        end_reason=state.end_reason,
        legal_moves=tuple([_NOTATION[drop] for drop in legal_drops(state)]),
        moves=state.moves,
    )


def _symbol(h: Hole) -> str:
    if h.content is Content.CHECKER and h.seat is not None:
        return SEAT_SYMBOLS[h.seat]
    if h.content is Content.BLOCKER:
        return BLOCKER_SYMBOL
    if h.content is Content.DEAD:
        return DEAD_SYMBOL
    return EMPTY_SYMBOL


_symbols: dict[int, tuple[tuple[Hole, ...], str]] = {}
"""Each column's symbols, bottom row first, by the column's identity (the column is kept
with them, so its id is never another's): views share their columns (``_column``)."""


def _column_symbols(column: tuple[Hole, ...]) -> str:
    found = _symbols.get(id(column))
    if found is not None and found[0] is column:
        return found[1]
    text = "".join([_symbol(h) for h in column])
    if len(_symbols) < _KEPT:
        _symbols[id(column)] = (column, text)
    return text


def render(state: State, seen: GameView | None = None) -> str:
    """Both sides next to each other, the back seen through the front (no mirroring).

    ``seen`` is the state's view if the caller has it already (it is the same for everyone).
    """
    if state.status is Status.NOT_STARTED:
        return "(game not created yet)"
    seen = seen or view(state)
    width = 2 * COLUMNS - 1
    lines = [f"   {'front':^{width}}     {'back':^{width}}"]
    # each side's rows, bottom first: its columns' symbols (one per row) read across
    front = [" ".join(r) for r in zip(*[_column_symbols(c) for c in seen.front], strict=True)]
    back = [" ".join(r) for r in zip(*[_column_symbols(c) for c in seen.back], strict=True)]
    for row in reversed(range(ROWS)):
        lines.append(f"{row} |{front[row]}|   |{back[row]}|")
    letters = " ".join(COLUMN_LETTERS)
    lines.append(f"   {letters}     {letters}")
    for seat in range(state.players):
        why = state.departure(seat)
        out = "  (out of time)" if why == TIMED_OUT else "  (resigned)" if why else ""
        lines.append(
            f"{SEAT_SYMBOLS[seat]} seat {seat}: {state.checkers_left[seat]} checkers, "
            f"{state.blockers_left[seat]} blockers{out}"
        )
    lines.append(
        f"{BLOCKER_SYMBOL} blocker  {DEAD_SYMBOL} dead cell  {EMPTY_SYMBOL} empty  "
        "(the back is seen through the front, not mirrored)"
    )
    if state.status is Status.WON and state.winner is not None:
        where = " ".join(f"{COLUMN_LETTERS[p.column]}{p.row}" for p in state.line)
        how = f" with {where}" if where else f" ({state.end_reason})"
        lines.append(f"{SEAT_SYMBOLS[state.winner]} seat {state.winner} wins{how}")
    elif state.status is Status.TIED:
        lines.append(f"tie ({state.end_reason})")
    else:
        lines.append(f"{SEAT_SYMBOLS[state.turn]} seat {state.turn} to play")
    return "\n".join(lines)


__all__ = ["Content", "GameView", "Hole", "render", "view"]
