"""A rack of tiles to anagram: letters, blanks and Qu tiles, parsed once and checked once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from parlor.core.errors import InvalidArgument

from .query import (
    BLANK,
    EMPTY_RACK,
    MAX_BLANKS,
    MAX_TILES,
    NOT_A_LETTER,
    QU,
    TOO_MANY_TILES,
    TOO_MANY_WILDCARDS,
)
from .tile import normalise_tile

_A = ord("a")


@dataclass(frozen=True, slots=True)
class Rack:
    """Tiles held: counts of the 26 letters, blanks (``?``) and Qu tiles (``qu``)."""

    counts: tuple[int, ...]
    blanks: int = 0
    qu: int = 0

    @property
    def size(self) -> int:
        """Number of tiles (a Qu tile is one tile)."""
        return sum(self.counts) + self.blanks + self.qu

    @property
    def letters(self) -> int:
        """Number of letters the tiles can spell (a Qu tile spells two)."""
        return sum(self.counts) + self.blanks + 2 * self.qu

    def letter_counts(self) -> list[int]:
        """Counts with each Qu tile loosened to a q and a u: a superset of what the rack spells."""
        counts = list(self.counts)
        counts[ord("q") - _A] += self.qu
        counts[ord("u") - _A] += self.qu
        return counts

    def spells(self, word: str) -> bool:
        """Whether these tiles can lay the word (a Qu tile only as an adjacent ``qu``)."""
        counts = list(self.counts)
        return _spells(word, 0, counts, self.blanks, self.qu)

    @classmethod
    def parse(cls, tiles: str | Sequence[str]) -> Rack:
        """Parses ``"retains?"`` (one tile per character) or ``["qu", "i", "?"]`` (one per item)."""
        items: Sequence[str]
        if isinstance(tiles, str):
            text = tiles.strip()
            for index, char in enumerate(text):
                if not (char.isascii() and (char.isalpha() or char == BLANK)):
                    raise InvalidArgument(
                        f"the rack has {char!r} at index {index}: tiles are letters a-z and '?'",
                        reason=NOT_A_LETTER,
                        metadata={"index": str(index), "character": char},
                    )
            items = text.lower()
        else:
            items = [normalise_tile(tile, blank_allowed=True) for tile in tiles]
        if not items:
            raise InvalidArgument("the rack is empty", reason=EMPTY_RACK)
        if len(items) > MAX_TILES:
            raise InvalidArgument(
                f"the rack has {len(items)} tiles; at most {MAX_TILES} are allowed",
                reason=TOO_MANY_TILES,
                metadata={"count": str(len(items)), "max": str(MAX_TILES)},
            )
        counts = [0] * 26
        blanks = qu = 0
        for item in items:
            if item == BLANK:
                blanks += 1
            elif item == QU:
                qu += 1
            else:
                counts[ord(item) - _A] += 1
        if blanks > MAX_BLANKS:
            raise InvalidArgument(
                f"the rack has {blanks} blanks; at most {MAX_BLANKS} are allowed",
                reason=TOO_MANY_WILDCARDS,
                metadata={"count": str(blanks), "max": str(MAX_BLANKS)},
            )
        return cls(tuple(counts), blanks, qu)


def _spells(word: str, index: int, counts: list[int], blanks: int, qu: int) -> bool:
    """Backtracks only over where a Qu tile goes; a held letter is always better than a blank."""
    while index < len(word):
        fits_qu = qu and word.startswith(QU, index)
        if fits_qu and _spells(word, index + 2, counts[:], blanks, qu - 1):
            return True
        letter = ord(word[index]) - _A
        if counts[letter]:
            counts[letter] -= 1
        elif blanks:
            blanks -= 1
        else:
            return False
        index += 1
    return True
