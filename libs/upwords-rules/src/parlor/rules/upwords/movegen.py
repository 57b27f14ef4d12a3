"""Move generation: every legal play of a rack, line by line, walking the DAWG.

Each of the 20 lines (rows across, columns down) is searched from every start
square that does not follow a tile. Along the line, an empty square takes a
rack tile, and an occupied square is either kept (its top letter is read) or
covered by a different rack tile if the stack is below 5. A tile placed on a
square with neighbours across the line must make a word there (the square's
cross-check, computed once per square and tile). Starts that cannot reach an
anchor (a tile, or an empty square touching one) with the tiles left are cut.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from parlor.rules.upwords import tiles
from parlor.rules.upwords.board import ACROSS, CENTRE, DOWN, MAX_HEIGHT, SIZE, Board, Square
from parlor.rules.upwords.crossword import QU_BONUS, SEVEN_TILE_BONUS
from parlor.rules.upwords.dawg import Dawg, Node
from parlor.rules.upwords.moves import Placement


@dataclass(frozen=True)
class GeneratedPlay:
    placements: tuple[Placement, ...]
    score: int


@dataclass
class _Line:
    """One row or column seen as a line: squares, tops, heights and cross-checks."""

    squares: list[Square]
    top: list[str | None]
    height: list[int]
    cross: list[dict[str, int] | None]  # None: no neighbours across, any tile fits
    anchor: list[bool]
    next_anchor: list[int]


def _cross_checks(
    board: Board, row: int, col: int, across: Square, rack: Sequence[str], lexicon: Dawg
) -> dict[str, int] | None:
    """Tiles that make a word across the line at (row, col), with that word's score."""
    dr, dc = across
    before: list[Square] = []
    r, c = row - dr, col - dc
    while board.occupied(r, c):
        before.append((r, c))
        r, c = r - dr, c - dc
    before.reverse()
    after: list[Square] = []
    r, c = row + dr, col + dc
    while board.occupied(r, c):
        after.append((r, c))
        r, c = r + dr, c + dc
    if not before and not after:
        return None
    others = before + after
    head = "".join(tiles.text(board.top(*sq) or "") for sq in before)
    tail = "".join(tiles.text(board.top(*sq) or "") for sq in after)
    heights = [board.height(*sq) for sq in others]
    has_qu = any(board.top(*sq) == tiles.QU for sq in others)
    own = board.height(row, col) + 1
    top = board.top(row, col)
    fits: dict[str, int] = {}
    if own > MAX_HEIGHT:
        return fits
    for tile in set(rack):
        if tile == top or head + tiles.text(tile) + tail not in lexicon:
            continue
        if own == 1 and all(h == 1 for h in heights):
            qu = has_qu or tile == tiles.QU
            fits[tile] = 2 * (len(others) + 1) + (QU_BONUS if qu else 0)
        else:
            fits[tile] = sum(heights) + own
    return fits


def _line(board: Board, squares: list[Square], rack: Sequence[str], lexicon: Dawg) -> _Line:
    across: Square = DOWN if squares[0][0] == squares[1][0] else ACROSS
    top = [board.top(*sq) for sq in squares]
    height = [board.height(*sq) for sq in squares]
    cross: list[dict[str, int] | None] = []
    anchor: list[bool] = []
    for (r, c), t in zip(squares, top, strict=True):
        dr, dc = across
        touching = board.occupied(r - dr, c - dc) or board.occupied(r + dr, c + dc)
        cross.append(_cross_checks(board, r, c, across, rack, lexicon) if touching else None)
        anchor.append(t is not None or touching)
    next_anchor = [SIZE] * (SIZE + 1)
    for j in range(SIZE - 1, -1, -1):
        next_anchor[j] = j if anchor[j] else next_anchor[j + 1]
    return _Line(squares, top, height, cross, anchor, next_anchor)


def generate(
    board: Board, rack: Sequence[str], lexicon: Dawg, *, plural_rule: bool = True
) -> Iterator[GeneratedPlay]:
    """Every legal play (words from ``lexicon``) of ``rack`` on ``board``.

    A single tile forming words both across and down is generated once per direction.
    """
    first = board.is_empty()
    lines: list[list[Square]] = []
    for i in range(SIZE):
        if first and i not in (4, 5):
            continue
        lines.append([(i, j) for j in range(SIZE)])
        lines.append([(j, i) for j in range(SIZE)])
    for squares in lines:
        line = _line(board, squares, rack, lexicon)
        yield from _search_line(line, Counter(rack), lexicon.root, first, plural_rule)


def _search_line(
    line: _Line, rack: Counter[str], root: Node, first: bool, plural_rule: bool
) -> Iterator[GeneratedPlay]:
    top, height, cross = line.top, line.height, line.cross
    placed: list[tuple[int, str]] = []
    found: list[GeneratedPlay] = []

    def record(start: int, end: int) -> None:
        spots = {j for j, _ in placed}
        if first and (len(placed) < 2 or not any(line.squares[j] in CENTRE for j in spots)):
            return
        # A play may not cover every letter of a word already on the line.
        j = start
        while j < end:
            if top[j] is None:
                j += 1
                continue
            k = j
            while k < end and top[k] is not None:
                k += 1
            if k - j >= 2 and all(m in spots for m in range(j, k)):
                return
            j = k
        if plural_rule and len(placed) == 1:
            (spot, tile) = placed[0]
            if (
                tile == "S"
                and top[spot] is None
                and spot == end - 1
                and end - start >= 3
                and cross[spot] is None
            ):
                return
        tiles_by_spot = dict(placed)
        heights = [height[j] + (1 if j in spots else 0) for j in range(start, end)]
        if all(h == 1 for h in heights):
            qu = any(tiles_by_spot.get(j, top[j]) == tiles.QU for j in range(start, end))
            score = 2 * (end - start) + (QU_BONUS if qu else 0)
        else:
            score = sum(heights)
        for j, tile in placed:
            fits = cross[j]
            if fits is not None:
                score += fits[tile]
        if len(placed) == tiles.RACK_SIZE:
            score += SEVEN_TILE_BONUS
        found.append(
            GeneratedPlay(
                tuple(Placement(*line.squares[j], tile) for j, tile in placed),
                score,
            )
        )

    def walk(start: int, j: int, node: Node, connected: bool) -> None:
        ends = j > start + 1 and (j == SIZE or top[j] is None)
        if ends and node.terminal and placed and (connected or first):
            record(start, j)
        if j == SIZE:
            return
        t = top[j]
        if t is not None:
            child = node.edges.get(t)
            if child is not None:
                walk(start, j + 1, child, True)
            if height[j] >= MAX_HEIGHT:
                return
        elif not connected and not first:
            a = line.next_anchor[j]
            if a == SIZE:
                return
            need = a - j + (0 if top[a] is not None else 1)
            if need > sum(rack.values()):
                return
        fits = cross[j]
        for tile, count in rack.items():
            if count == 0 or tile == t:
                continue
            child = node.edges.get(tile)
            if child is None or (fits is not None and tile not in fits):
                continue
            rack[tile] = count - 1
            placed.append((j, tile))
            walk(start, j + 1, child, connected or line.anchor[j])
            placed.pop()
            rack[tile] = count

    for start in range(SIZE):
        if start > 0 and top[start - 1] is not None:
            continue
        walk(start, start, root, False)
    yield from found
