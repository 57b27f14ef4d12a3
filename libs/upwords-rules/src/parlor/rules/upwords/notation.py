"""Move notation, after GCG (the crossword-game record format).

Squares: columns ``A``-``J`` left to right, rows ``1``-``10`` top to bottom.
A play is ``<coordinate> <word>``: the coordinate names the first square of
the main word, row first for a play across (``5E``), column first for a play
down (``E5``). The word is spelled in full, left to right or top to bottom;
letters already on the board and left in place are in parentheses, every
other letter is a tile placed in this play (on an empty square or on top of
a stack). The Qu tile is written ``QU`` (a Q is always the Qu tile).
Example: ``5E W(O)R(D)`` puts W on 5E and R on 5G, keeping O and D.
A single tile reads across if it forms a word across, else down.
Other turns: ``-`` is a pass, ``-X`` exchanges the tile X.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from parlor.core.errors import InvalidArgument, InvalidNotation
from parlor.rules.upwords import tiles
from parlor.rules.upwords.board import ACROSS, DOWN, SIZE, Board, Square
from parlor.rules.upwords.moves import Placement

COLUMNS = "ABCDEFGHIJ"
_ACROSS = re.compile(r"^(10|[1-9])([A-J])$")
_DOWN = re.compile(r"^([A-J])(10|[1-9])$")
# Shaped like a coordinate, row and column in either order: 11A, A11, K5, Z99.
_ANY_SQUARE = re.compile(r"^(?:(\d+)([A-Z])|([A-Z])(\d+))$")


def _off_board(coord: str) -> bool:
    """A coordinate with one part on the board and the other past its edge (11A, K5)."""
    m = _ANY_SQUARE.match(coord)
    if m is None:
        return False
    row, col = (int(m[1]), m[2]) if m[1] else (int(m[4]), m[3])
    return (1 <= row <= SIZE) != (col in COLUMNS)


@dataclass(frozen=True)
class NotatedPlay:
    placements: tuple[Placement, ...]
    kept: tuple[tuple[int, int, str], ...]


@dataclass(frozen=True)
class NotatedExchange:
    tile: str


@dataclass(frozen=True)
class NotatedPass:
    pass


NotatedMove = NotatedPlay | NotatedExchange | NotatedPass


FORMER_REASON = "BAD_NOTATION"
"""Upwords' name for ``INVALID_NOTATION`` before every game shared it (``deprecated_reason``)."""


def unreadable(message: str) -> InvalidNotation:
    """The refusal of a move that cannot be read: ``INVALID_NOTATION`` (was ``BAD_NOTATION``)."""
    return InvalidNotation(message, formerly=FORMER_REASON)


def _bad(text: str, why: str) -> InvalidNotation:
    return unreadable(f"cannot read move {text!r}: {why}")


def parse_coordinate(text: str) -> tuple[int, int, Square]:
    """``5E`` -> (4, 4, ACROSS); ``E5`` -> (4, 4, DOWN)."""
    coord = text.strip().upper()
    if m := _ACROSS.match(coord):
        return int(m[1]) - 1, COLUMNS.index(m[2]), ACROSS
    if m := _DOWN.match(coord):
        return int(m[2]) - 1, COLUMNS.index(m[1]), DOWN
    if _off_board(coord):
        raise InvalidArgument(
            f"cannot play {text!r}: {coord} is off the board (rows 1-10, columns A-J)",
            reason="OFF_BOARD",
        )
    raise _bad(text, "the coordinate is not like 5E (across) or E5 (down)")


def format_coordinate(row: int, col: int, direction: Square) -> str:
    if direction == ACROSS:
        return f"{row + 1}{COLUMNS[col]}"
    return f"{COLUMNS[col]}{row + 1}"


def _tile_tokens(text: str, letters: str) -> list[str]:
    spelled = tiles.tokens(letters)
    if spelled is None:
        raise _bad(text, "letters must be A-Z, with Q only as QU")
    return list(spelled)


def parse_move(text: str) -> NotatedMove:
    """Read a move written in this notation."""
    body = text.strip()
    if body == "-":
        return NotatedPass()
    if body.startswith("-"):
        spelled = _tile_tokens(text, body[1:])
        if len(spelled) != 1:
            raise _bad(text, "an exchange names exactly one tile")
        return NotatedExchange(spelled[0])
    parts = body.split()
    if len(parts) != 2:
        raise _bad(text, "a play is a coordinate and a word")
    row, col, (dr, dc) = parse_coordinate(parts[0])
    placed: list[tuple[int, int, str]] = []
    kept: list[tuple[int, int, str]] = []
    for i, chunk in enumerate(re.split(r"(\([^()]*\))", parts[1])):
        if not chunk:
            continue
        is_kept = chunk.startswith("(")
        letters = chunk[1:-1] if is_kept else chunk
        if (not is_kept and i % 2 == 1) or ("(" in letters or ")" in letters):
            raise _bad(text, "unbalanced parentheses")
        for tile in _tile_tokens(text, letters):
            if not (0 <= row < SIZE and 0 <= col < SIZE):
                raise InvalidArgument(
                    f"cannot play {text!r}: the word runs off the board", reason="OFF_BOARD"
                )
            (kept if is_kept else placed).append((row, col, tile))
            row, col = row + dr, col + dc
    return NotatedPlay(
        tuple(Placement(r, c, t) for r, c, t in placed),
        tuple(kept),
    )


def parse_play(text: str) -> tuple[Placement, ...]:
    move = parse_move(text)
    if not isinstance(move, NotatedPlay):
        raise _bad(text, "not a play")
    return move.placements


def _tile_text(tile: str) -> str:
    return tile.upper()


def format_play(board: Board, placements: tuple[Placement, ...] | list[Placement]) -> str:
    """Write a play made on ``board`` (the board before the play)."""
    after = board.placed((p.row, p.col, p.tile) for p in placements)
    first = (placements[0].row, placements[0].col)
    if len(placements) > 1:
        direction = ACROSS if placements[0].row == placements[1].row else DOWN
    else:
        direction = ACROSS if len(after.run(*first, ACROSS)) >= 2 else DOWN
    run = after.run(*first, direction)
    placed = {(p.row, p.col): p.tile for p in placements}
    out: list[str] = []
    in_kept = False
    for sq in run:
        is_kept = sq not in placed
        if is_kept != in_kept:
            out.append("(" if is_kept else ")")
            in_kept = is_kept
        out.append(_tile_text(placed[sq] if not is_kept else after.top(*sq) or ""))
    if in_kept:
        out.append(")")
    return f"{format_coordinate(*run[0], direction)} {''.join(out)}"


def format_exchange(tile: str) -> str:
    return f"-{_tile_text(tile)}"


PASS = "-"


def tile_of(text: str) -> str:
    """A tile as the engine names it, from how a player wrote it: upper case, and ``Qu``."""
    t = text.strip().upper()
    return tiles.QU if t == "QU" else t


def exchanged_tile(text: str) -> str:
    """The tile an exchange returns, as written (``tile_of``); not an Upwords tile: refused
    (``UNKNOWN_TILE``)."""
    tile = tile_of(text)
    if tile not in tiles.DISTRIBUTION:
        raise InvalidArgument(f"{text!r} is not an Upwords tile", reason="UNKNOWN_TILE")
    return tile


def play_of(placed: Sequence[tuple[int, int, str]], move: str) -> NotatedPlay:
    """A play given one of two ways, its tiles ``placed`` one by one (row, column, tile as
    written) or ``move`` in this notation: its placements and the tiles it keeps (none when
    placed one by one). Refused: both given (``PLAY_GIVEN_TWICE``), neither (``NO_TILES``),
    and a pass or an exchange, which is not a play (``INVALID_NOTATION``)."""
    if placed and move:
        raise InvalidArgument(
            "give the play as placements or as a move in notation, not both",
            reason="PLAY_GIVEN_TWICE",
        )
    if placed:
        return NotatedPlay(tuple(Placement(row, col, tile_of(t)) for row, col, t in placed), ())
    if not move.strip():
        raise InvalidArgument("a play places at least one tile", reason="NO_TILES")
    parsed = parse_move(move)
    if not isinstance(parsed, NotatedPlay):
        raise unreadable("a pass or an exchange is not a play: use Pass or Exchange")
    return parsed


def check_kept(board: Board, kept: tuple[tuple[int, int, str], ...]) -> None:
    """Refuse a play whose letters in parentheses (tiles it keeps) are not on the board."""
    for row, col, tile in kept:
        if board.top(row, col) != tile:
            raise unreadable(
                f"the letters in parentheses must be on the board:"
                f" {format_coordinate(row, col, (0, 1))} is not {tile.upper()}"
            )
