"""Move notation: ``df`` (checker in column d, front), ``gb`` (back), ``cx`` (blocker)."""

from __future__ import annotations

from typing import Final

from parlor.core.errors import InvalidNotation
from parlor.rules.connect4x4.board import COLUMN_LETTERS, Side
from parlor.rules.connect4x4.commands import DropBlocker, DropChecker, Move
from parlor.rules.connect4x4.events import BlockerDropped, CheckerDropped

BLOCKER_MARK: Final = "x"
_SIDE_OF_LETTER: Final = {"f": Side.FRONT, "b": Side.BACK}
_LETTER_OF_SIDE: Final = {side: letter for letter, side in _SIDE_OF_LETTER.items()}


def parse_move(text: str, seat: int) -> Move:
    """The drop written as ``text``, made by ``seat``; case and surrounding spaces are ignored."""
    if not isinstance(text, str):
        raise InvalidNotation(f"a move is written as text, got {text!r}")
    written = text.strip().lower()
    if len(written) != 2 or written[0] not in COLUMN_LETTERS:
        raise InvalidNotation(
            f"a move is a column a-g then f, b or x (like df, gb, cx), got {text!r}"
        )
    column = COLUMN_LETTERS.index(written[0])
    if written[1] == BLOCKER_MARK:
        return DropBlocker(seat, column)
    side = _SIDE_OF_LETTER.get(written[1])
    if side is None:
        raise InvalidNotation(f"the second letter of a move is f, b or x, got {text!r}")
    return DropChecker(seat, column, side)


def format_move(move: Move) -> str:
    """The notation of a drop (the seat is not part of it)."""
    if not 0 <= move.column < len(COLUMN_LETTERS):
        raise InvalidNotation(f"no column {move.column!r}")
    letter = COLUMN_LETTERS[move.column]
    if isinstance(move, DropBlocker):
        return letter + BLOCKER_MARK
    return letter + _LETTER_OF_SIDE[move.side]


def event_notation(event: object) -> str:
    """The drop an event records, in notation ("" for any other event)."""
    if isinstance(event, CheckerDropped):
        return format_move(DropChecker(event.seat, event.column, event.side))
    if isinstance(event, BlockerDropped):
        return format_move(DropBlocker(event.seat, event.column))
    return ""
