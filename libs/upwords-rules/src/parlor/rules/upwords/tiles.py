"""The 100 Upwords tiles: letters A-Z without Q, plus the one Qu tile."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

QU = "Qu"

DISTRIBUTION: dict[str, int] = {
    "E": 8,
    **dict.fromkeys("AIO", 7),
    "S": 6,
    **dict.fromkeys("DLMNRTU", 5),
    "C": 4,
    **dict.fromkeys("BFGHP", 3),
    **dict.fromkeys("KWY", 2),
    **dict.fromkeys(["J", QU, "V", "X", "Z"], 1),
}

TILES: frozenset[str] = frozenset(DISTRIBUTION)
BAG_SIZE = sum(DISTRIBUTION.values())
RACK_SIZE = 7


def full_bag() -> tuple[str, ...]:
    """Every tile once, in a fixed order (the service shuffles a copy of this)."""
    return tuple(tile for tile in sorted(DISTRIBUTION) for _ in range(DISTRIBUTION[tile]))


def is_full_bag(tiles: Iterable[str]) -> bool:
    """Whether a sequence is exactly the 100 tiles (a shuffle of the whole bag)."""
    return Counter(tiles) == Counter(DISTRIBUTION)


def text(tile: str) -> str:
    """How a tile reads inside a word: lowercase, the Qu tile as "qu"."""
    return tile.lower()


def draw_rank(tile: str) -> int:
    """Distance from "A" for the first-player draw (Qu counts as Q)."""
    return ord(tile[0]) - ord("A")


def tokens(word: str) -> tuple[str, ...] | None:
    """A word as tiles (``quit`` -> Qu, I, T), or None if no tiles can spell it."""
    out: list[str] = []
    i = 0
    upper = word.upper()
    while i < len(upper):
        ch = upper[i]
        if ch == "Q":
            if upper[i + 1 : i + 2] != "U":
                return None
            out.append(QU)
            i += 2
            continue
        if not ("A" <= ch <= "Z"):
            return None
        out.append(ch)
        i += 1
    return tuple(out)
