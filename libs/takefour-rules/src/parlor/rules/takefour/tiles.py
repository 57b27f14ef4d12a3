"""The tile set: which letters, how many, and what each is worth when left over."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from parlor.core.errors import InvalidArgument

JOKER = "?"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# A game's tiles are dealt, shuffled and stored in its events: 1,000 (ten times the
# rulebook's 100) keeps every event far below the bus's payload limit. A tile's value is at
# most 1,000, so no total (at most target + 1,000 x 1,000 in a round) can overflow 32 bits.
BAD_TILE_SET = "BAD_TILE_SET"
"""The reason a tile set the rules cannot deal is refused with (too large: its own reasons)."""
MAX_TILES = 1000
MAX_TILE_VALUE = 1000


def named_letter(value: str) -> str | None:
    """The letter a command names (a joker's, or a letter tile's to match) as a request gives
    it: None if empty, else one of A-Z in either case; anything else is refused before the
    hand or the grid is looked at (INVALID_ARGUMENT ``WRONG_LETTER``)."""
    if not value:
        return None
    letter = value.upper()
    if len(letter) != 1 or letter not in LETTERS:
        raise InvalidArgument(f"a letter is one of A-Z, not {value[:8]!r}", reason="WRONG_LETTER")
    return letter


@dataclass(frozen=True)
class LetterTiles:
    """How many tiles carry one letter, and the value each scores when unused."""

    letter: str
    count: int
    value: int


@dataclass(frozen=True)
class TileSet:
    """The tiles of a game; tile ids are positions in ``faces`` (letters first, jokers last)."""

    letters: tuple[LetterTiles, ...]
    jokers: int = 4
    joker_value: int = 0

    def validate(self) -> None:
        """Refuse a malformed set up front, so no later rule meets one."""
        seen: set[str] = set()
        for spec in self.letters:
            if len(spec.letter) != 1 or spec.letter not in LETTERS:
                raise InvalidArgument(
                    f"tile letter must be one of A-Z, got {spec.letter!r}", reason=BAD_TILE_SET
                )
            if spec.letter in seen:
                raise InvalidArgument(
                    f"tile letter {spec.letter} is listed twice", reason=BAD_TILE_SET
                )
            seen.add(spec.letter)
            if spec.count < 0 or spec.value < 0:
                raise InvalidArgument(
                    f"tile counts and values must be >= 0 ({spec.letter})", reason=BAD_TILE_SET
                )
        if self.jokers < 0 or self.joker_value < 0:
            raise InvalidArgument("joker count and value must be >= 0", reason=BAD_TILE_SET)
        values = [spec.value for spec in self.letters] + [self.joker_value]
        if max(values) > MAX_TILE_VALUE:
            raise InvalidArgument(
                f"a tile's value is at most {MAX_TILE_VALUE}", reason="TILE_VALUE_TOO_LARGE"
            )
        total = sum(spec.count for spec in self.letters) + self.jokers
        if total > MAX_TILES:  # counted before ``faces`` is built: it would hold every tile
            raise InvalidArgument(
                f"a tile set has at most {MAX_TILES} tiles, jokers included; this one has {total}",
                reason="TOO_MANY_TILES",
            )
        if self.size == 0:
            raise InvalidArgument("the tile set is empty", reason=BAD_TILE_SET)

    @property
    def size(self) -> int:
        return len(self.faces)

    def face(self, tile: int) -> str:
        """The printed letter of a tile, or ``JOKER``."""
        return self.faces[tile]

    def value(self, tile: int) -> int:
        return self.values[tile]

    def is_joker(self, tile: int) -> bool:
        return self.faces[tile] == JOKER

    # Computed once per instance and kept on it (not fields: equality and hashing ignore
    # them). A module-level cache keyed by the set would hash and compare all its letters
    # on every lookup, which made each face lookup cost more than the rule using it.
    @cached_property
    def faces(self) -> tuple[str, ...]:
        """Tile id -> face."""
        out: list[str] = []
        for spec in self.letters:
            out.extend(spec.letter * spec.count)
        out.extend(JOKER * self.jokers)
        return tuple(out)

    @cached_property
    def values(self) -> tuple[int, ...]:
        """Tile id -> value when left over."""
        by_letter = {spec.letter: spec.value for spec in self.letters}
        return tuple(self.joker_value if face == JOKER else by_letter[face] for face in self.faces)


def faces(tiles: TileSet) -> tuple[str, ...]:
    """Tile id -> face (computed once per set)."""
    return tiles.faces


def values(tiles: TileSet) -> tuple[int, ...]:
    """Tile id -> value when left over (computed once per set)."""
    return tiles.values


_COUNTS = "A9 B2 C2 D4 E11 F2 G3 H2 I8 J1 K1 L4 M2 N6 O8 P2 Q1 R6 S4 T6 U4 V2 W2 X1 Y2 Z1"
_VALUES = {
    **dict.fromkeys("AEILNORSTU", 1),
    **dict.fromkeys("DG", 2),
    **dict.fromkeys("BCMP", 3),
    **dict.fromkeys("FHVWY", 4),
    "K": 5,
    **dict.fromkeys("JX", 8),
    **dict.fromkeys("QZ", 10),
}

STANDARD_TILES = TileSet(
    letters=tuple(
        LetterTiles(item[0], int(item[1:]), _VALUES[item[0]]) for item in _COUNTS.split()
    ),
    jokers=4,
    joker_value=0,
)
"""The platform's default set (RULES.md): 96 letters and 4 jokers, 100 tiles."""
