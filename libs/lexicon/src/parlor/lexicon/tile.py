"""Tiles and the words they spell: Upwords' Qu tile is one tile that spells two letters.

A tile is one letter a-z, the Qu tile (written ``"qu"``, any case), or, in a rack
only, a blank ``"?"``. Words in a lexicon are plain letters, so QUIT is the word
``"quit"`` spelled by the three tiles ``["qu", "i", "t"]``.
"""

from __future__ import annotations

from collections.abc import Iterable

from parlor.core.errors import InvalidArgument

from .query import NOT_A_TILE, QU

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def normalise_tile(tile: str, *, blank_allowed: bool = False) -> str:
    """Returns the tile lowercased (``"Qu"`` -> ``"qu"``) or raises NOT_A_TILE."""
    text = tile.strip().lower()
    if text in _LETTERS or text == QU or (blank_allowed and text == "?"):
        return text
    allowed = "a letter a-z, 'qu'" + (" or '?'" if blank_allowed else "")
    raise InvalidArgument(
        f"{tile!r} is not a tile: a tile is {allowed}", reason=NOT_A_TILE, metadata={"tile": tile}
    )


def spell(tiles: Iterable[str]) -> str:
    """Spells the word a line of placed tiles forms: ``["Qu", "i", "t"]`` -> ``"quit"``."""
    return "".join(normalise_tile(tile) for tile in tiles)


def qu_tiles(word: str) -> tuple[str, ...] | None:
    """Splits a word into Upwords tiles (every ``qu`` is the Qu tile); None if a ``q`` has no ``u``.

    Upwords has no lone Q tile, so ``"qi"`` cannot be played there and gives None.
    """
    tiles: list[str] = []
    index = 0
    while index < len(word):
        if word[index] == "q":
            if word[index + 1 : index + 2] != "u":
                return None
            tiles.append(QU)
            index += 2
        else:
            tiles.append(word[index])
            index += 1
    return tuple(tiles)
