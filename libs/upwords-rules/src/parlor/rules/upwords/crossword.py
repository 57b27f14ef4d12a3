"""The rules of one play on the board: placement, stacking, words formed and their score."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from parlor.core.errors import InvalidArgument, PermissionDenied, RuleViolation
from parlor.rules.upwords import tiles
from parlor.rules.upwords.board import ACROSS, CENTRE, DOWN, MAX_HEIGHT, Board, Square, on_board
from parlor.rules.upwords.moves import Placement, Play
from parlor.rules.upwords.state import Phase, UpwordsState

SEVEN_TILE_BONUS = 20
QU_BONUS = 2


@dataclass(frozen=True)
class FormedWord:
    """A run of 2+ letters the play creates or changes, with what it scores."""

    text: str
    squares: tuple[Square, ...]
    score: int


@dataclass(frozen=True)
class PlayCheck:
    """A play that passed every rule except the dictionary: its words and total score."""

    words: tuple[FormedWord, ...]
    bonus: int

    @property
    def score(self) -> int:
        return sum(w.score for w in self.words) + self.bonus

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(w.text for w in self.words)


def word_score(board: Board, squares: Sequence[Square]) -> int:
    """Flat word: 2 per tile (+2 with the Qu); any stack: the sum of the stack heights."""
    heights = [board.height(r, c) for r, c in squares]
    if all(h == 1 for h in heights):
        qu = any(board.top(r, c) == tiles.QU for r, c in squares)
        return 2 * len(squares) + (QU_BONUS if qu else 0)
    return sum(heights)


def word_text(board: Board, squares: Sequence[Square]) -> str:
    return "".join(tiles.text(board.top(r, c) or "") for r, c in squares)


def _refuse(rule: str, message: str) -> RuleViolation:
    return RuleViolation(rule, message)


def check_play(
    board: Board,
    rack: Sequence[str],
    placements: Sequence[Placement],
    *,
    plural_rule: bool = True,
) -> PlayCheck:
    """Every board rule of a play (not the dictionary); raises naming the broken rule."""
    if not placements:
        raise InvalidArgument("a play places at least one tile", reason="NO_TILES")
    for p in placements:
        if not on_board(p.row, p.col):
            raise InvalidArgument(f"square ({p.row}, {p.col}) is off the board", reason="OFF_BOARD")
        if p.tile not in tiles.TILES:
            raise InvalidArgument(f"{p.tile!r} is not an Upwords tile", reason="UNKNOWN_TILE")
    if Counter(p.tile for p in placements) - Counter(rack):
        raise _refuse("TILES_NOT_ON_RACK", "the play uses tiles that are not on your rack")
    squares = [(p.row, p.col) for p in placements]
    placed = set(squares)
    if len(placed) != len(squares):
        raise _refuse("ONE_TILE_PER_STACK", "at most one tile may go on each stack per turn")
    rows = {r for r, _ in squares}
    cols = {c for _, c in squares}
    if len(rows) > 1 and len(cols) > 1:
        raise _refuse("NOT_IN_ONE_LINE", "all tiles must go in one row or one column")
    for p in placements:
        if board.top(p.row, p.col) == p.tile:
            raise _refuse("SAME_LETTER_ON_STACK", "a tile may not go on the same letter")
        if board.height(p.row, p.col) >= MAX_HEIGHT:
            raise _refuse("STACK_TOO_HIGH", f"stacks are at most {MAX_HEIGHT} tiles high")
    direction = ACROSS if len(rows) == 1 else DOWN
    if len(squares) > 1:
        if direction == ACROSS:
            (row,) = rows
            line = [(row, c) for c in range(min(cols), max(cols) + 1)]
        else:
            (col,) = cols
            line = [(r, col) for r in range(min(rows), max(rows) + 1)]
        if any(sq not in placed and not board.occupied(*sq) for sq in line):
            raise _refuse("GAP_IN_LINE", "the tiles must form one unbroken line with the board")
    if board.is_empty():
        if len(placements) < 2:
            raise _refuse("FIRST_PLAY_TOO_SHORT", "the first play needs at least 2 letters")
        if not placed & CENTRE:
            raise _refuse("FIRST_PLAY_OFF_CENTRE", "the first play must cover a centre square")
    elif not any(
        board.occupied(r, c) or any(board.occupied(r + dr, c + dc) for dr, dc in _NEIGHBOURS)
        for r, c in squares
    ):
        raise _refuse("NOT_CONNECTED", "the play must touch or stack on tiles on the board")
    for r, c in squares:
        if not board.occupied(r, c):
            continue
        for d in (ACROSS, DOWN):
            run = board.run(r, c, d)
            if len(run) >= 2 and placed.issuperset(run):
                raise _refuse(
                    "COVERS_WHOLE_WORD", "a play may not cover every letter of a word on the board"
                )
    after = board.placed((p.row, p.col, p.tile) for p in placements)
    cross = DOWN if direction == ACROSS else ACROSS
    runs = [after.run(*squares[0], direction)] + [after.run(r, c, cross) for r, c in squares]
    words = tuple(
        FormedWord(word_text(after, run), tuple(run), word_score(after, run))
        for run in runs
        if len(run) >= 2
    )
    if not words:
        raise _refuse("NO_WORD_FORMED", "a play must form a word of at least 2 letters")
    if plural_rule and len(placements) == 1 and _adds_plural_s(board, after, placements[0]):
        raise _refuse("PLURAL_S", "a play may not simply add an S to the end of a word")
    bonus = SEVEN_TILE_BONUS if len(placements) == tiles.RACK_SIZE else 0
    return PlayCheck(words, bonus)


_NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _adds_plural_s(before: Board, after: Board, p: Placement) -> bool:
    """A lone S on an empty square ending a 2+ letter word, forming no other word."""
    if p.tile != "S" or before.occupied(p.row, p.col):
        return False
    across = after.run(p.row, p.col, ACROSS)
    down = after.run(p.row, p.col, DOWN)
    for run, other in ((across, down), (down, across)):
        if len(run) >= 3 and run[-1] == (p.row, p.col) and len(other) == 1:
            return True
    return False


def validate_play(state: UpwordsState, seat: int, placements: Sequence[Placement]) -> PlayCheck:
    """The bot's and the service's fast path: every rule of a play except the dictionary."""
    if state.phase is not Phase.PLAYING:
        raise _refuse("GAME_NOT_IN_PROGRESS", "the game is not in progress")
    if not 0 <= seat < state.players:
        raise InvalidArgument(f"no seat {seat}", reason="NO_SUCH_SEAT")
    if seat != state.to_move:
        raise PermissionDenied("it is not your turn", reason="NOT_YOUR_TURN")
    if state.pending_is_final():
        raise _refuse("CHALLENGE_WINDOW_OPEN", "accept or challenge the last play first")
    return check_play(
        state.board, state.racks[seat], placements, plural_rule=state.config.plural_rule
    )


def words_formed(state: UpwordsState, play: Play) -> list[str]:
    """The words the service must look up for a play (lowercase; Qu reads "qu")."""
    return list(validate_play(state, play.seat, play.placements).texts)
