"""Parlor's lexicons: immutable, content-addressed word lists for every word game.

Membership, prefixes, anagrams and patterns.

Pure: no I/O beyond reading a word list. See README.md for the data structures and their figures.
"""

from __future__ import annotations

from .anagram import Budget
from .lexicon import Lexicon
from .query import (
    BATCH_TOO_LARGE,
    BLANK,
    DEFAULT_LIMIT,
    EMPTY_PATTERN,
    EMPTY_RACK,
    EMPTY_WORD,
    INVALID_LEXICON_NAME,
    LEXICON_NAME_TAKEN,
    LIMIT_OUT_OF_RANGE,
    MAX_BATCH,
    MAX_BLANKS,
    MAX_LIMIT,
    MAX_PATTERN_LENGTH,
    MAX_SEARCH_STEPS,
    MAX_STARS,
    MAX_TILES,
    MAX_WORD_LENGTH,
    MIN_LENGTH_OUT_OF_RANGE,
    NOT_A_LETTER,
    NOT_A_TILE,
    QU,
    SEARCH_TOO_BROAD,
    STAR,
    TOO_MANY_TILES,
    TOO_MANY_WILDCARDS,
    UNKNOWN_LEXICON,
    WORD_TOO_LONG,
    normalise_word,
)
from .rack import Rack
from .shelf import ENABLE1, Registry, enable1, lexicon_from_bytes, load_lexicon, load_registry
from .tile import qu_tiles, spell

__all__ = [
    "BATCH_TOO_LARGE",
    "BLANK",
    "DEFAULT_LIMIT",
    "EMPTY_PATTERN",
    "EMPTY_RACK",
    "EMPTY_WORD",
    "ENABLE1",
    "INVALID_LEXICON_NAME",
    "LEXICON_NAME_TAKEN",
    "LIMIT_OUT_OF_RANGE",
    "MAX_BATCH",
    "MAX_BLANKS",
    "MAX_LIMIT",
    "MAX_PATTERN_LENGTH",
    "MAX_SEARCH_STEPS",
    "MAX_STARS",
    "MAX_TILES",
    "MAX_WORD_LENGTH",
    "MIN_LENGTH_OUT_OF_RANGE",
    "NOT_A_LETTER",
    "NOT_A_TILE",
    "QU",
    "SEARCH_TOO_BROAD",
    "STAR",
    "TOO_MANY_TILES",
    "TOO_MANY_WILDCARDS",
    "UNKNOWN_LEXICON",
    "WORD_TOO_LONG",
    "Budget",
    "Lexicon",
    "Rack",
    "Registry",
    "enable1",
    "lexicon_from_bytes",
    "load_lexicon",
    "load_registry",
    "normalise_word",
    "qu_tiles",
    "spell",
]
