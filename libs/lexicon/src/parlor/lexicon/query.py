"""Normalising what callers ask: every bad input fails the same way, with a reason to act on.


Words, racks and patterns are stripped of surrounding whitespace and lowercased;
anything else that is not a letter a-z (or, where allowed, a wildcard) is refused
with ``InvalidArgument`` naming the first offending character and its index (0-based,
in the stripped input). The gRPC service maps these errors one to one.
"""

from __future__ import annotations

from parlor.core.errors import InvalidArgument

MAX_WORD_LENGTH = 64
"""Longest word or pattern accepted (ENABLE's longest word has 28 letters)."""

MAX_BATCH = 20_000
"""Most words in one ``check_many`` call."""

MAX_TILES = 16
"""Most tiles in one anagram rack (blanks included).

More than any rack or hand a game deals: an Upwords rack holds 7, a Take Four deal is 4
(jokers included), and 16 is a Take Four hand after four deals, or an Upwords rack with
the letters of the line it plays through (a line is 10 squares).
"""

MAX_BLANKS = 4
"""Most blanks in a rack: Take Four has 4 jokers; more makes a query return most of the list."""

MAX_PATTERN_LENGTH = 32
"""Longest pattern (``*`` included): an Upwords line is 10 squares, ENABLE's longest word 28."""

MAX_STARS = 8
"""Most ``*`` runs in a pattern."""

DEFAULT_LIMIT = 100
"""Words a search returns when the caller sets no limit."""

MAX_LIMIT = 1000
"""Most words one search returns: at most ~30 KB, far below gRPC's 4 MB message limit."""

MAX_SEARCH_STEPS = 100_000
"""Most trie steps one anagram search may take: about 0.05-0.1 s of one core.

Any Upwords rack takes a few hundred; a 16-tile hand with 4 jokers and a limit of 1,000
can need up to ~300,000 and is refused (``SEARCH_TOO_BROAD``): fewer jokers, a larger
``min_length`` or a smaller ``limit`` bring it within the budget.
"""

BLANK = "?"
"""A blank (joker) in a rack, or any one letter in a pattern."""

STAR = "*"
"""Any run of letters (possibly none) in a pattern."""

QU = "qu"
"""Upwords' Qu tile: one tile that spells two letters."""

# Reasons, stable for clients to switch on.
EMPTY_WORD = "EMPTY_WORD"
EMPTY_RACK = "EMPTY_RACK"
EMPTY_PATTERN = "EMPTY_PATTERN"
NOT_A_LETTER = "NOT_A_LETTER"
NOT_A_TILE = "NOT_A_TILE"
WORD_TOO_LONG = "WORD_TOO_LONG"
BATCH_TOO_LARGE = "BATCH_TOO_LARGE"
TOO_MANY_TILES = "TOO_MANY_TILES"
TOO_MANY_WILDCARDS = "TOO_MANY_WILDCARDS"
MIN_LENGTH_OUT_OF_RANGE = "MIN_LENGTH_OUT_OF_RANGE"
LIMIT_OUT_OF_RANGE = "LIMIT_OUT_OF_RANGE"
SEARCH_TOO_BROAD = "SEARCH_TOO_BROAD"
INVALID_LEXICON_NAME = "INVALID_LEXICON_NAME"
UNKNOWN_LEXICON = "UNKNOWN_LEXICON"
LEXICON_NAME_TAKEN = "LEXICON_NAME_TAKEN"

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def _not_a_letter(what: str, text: str, allowed: frozenset[str], hint: str) -> InvalidArgument:
    """Names the first character outside ``allowed`` so the caller can fix exactly that."""
    for index, char in enumerate(text):
        if not (char.isascii() and char.lower() in allowed):
            return InvalidArgument(
                f"{what} has {char!r} at index {index}: {hint}",
                reason=NOT_A_LETTER,
                metadata={"index": str(index), "character": char},
            )
    raise AssertionError("unreachable: no offending character")  # pragma: no cover


def _too_long(what: str, length: int, most: int = MAX_WORD_LENGTH) -> InvalidArgument:
    return InvalidArgument(
        f"{what} has {length} characters; at most {most} are allowed",
        reason=WORD_TOO_LONG,
        metadata={"length": str(length), "max": str(most)},
    )


def normalise_word(word: str) -> str:
    """Returns the lexicon form of ``word`` (stripped, lowercase a-z) or raises InvalidArgument."""
    text = word.strip()
    if not text:
        raise InvalidArgument("the word is empty", reason=EMPTY_WORD)
    if len(text) > MAX_WORD_LENGTH:
        raise _too_long("the word", len(text))
    if text.isascii() and text.isalpha():
        return text.lower()
    raise _not_a_letter("the word", text, _LETTERS, "words are letters a-z only")


def check_batch_size(count: int) -> None:
    """Refuses a batch of more than MAX_BATCH words."""
    if count > MAX_BATCH:
        raise InvalidArgument(
            f"{count} words in one batch; at most {MAX_BATCH} are allowed",
            reason=BATCH_TOO_LARGE,
            metadata={"count": str(count), "max": str(MAX_BATCH)},
        )


def normalise_batch_word(position: int, word: str) -> str:
    """``normalise_word`` for the word at ``position`` of a batch; an error names that index."""
    try:
        return normalise_word(word)
    except InvalidArgument as error:
        raise InvalidArgument(
            f"words[{position}]: {error.message}",
            reason=error.reason,
            metadata={**error.metadata, "word_index": str(position)},
        ) from None


_PATTERN_CHARS = _LETTERS | {BLANK, STAR}


def normalise_pattern(pattern: str) -> str:
    """Returns the pattern stripped, lowercased, with runs of ``*`` collapsed, or raises."""
    text = pattern.strip()
    if not text:
        raise InvalidArgument("the pattern is empty", reason=EMPTY_PATTERN)
    if len(text) > MAX_PATTERN_LENGTH:
        raise _too_long("the pattern", len(text), MAX_PATTERN_LENGTH)
    lowered = text.lower()
    if not (text.isascii() and set(lowered) <= _PATTERN_CHARS):
        raise _not_a_letter(
            "the pattern", text, _PATTERN_CHARS, "patterns are letters a-z, '?' and '*'"
        )
    while STAR + STAR in lowered:
        lowered = lowered.replace(STAR + STAR, STAR)
    stars = lowered.count(STAR)
    if stars > MAX_STARS:
        raise InvalidArgument(
            f"the pattern has {stars} '*'; at most {MAX_STARS} are allowed",
            reason=TOO_MANY_WILDCARDS,
            metadata={"count": str(stars), "max": str(MAX_STARS)},
        )
    return lowered


def check_min_length(min_length: int) -> None:
    """Refuses a minimum word length outside 2..MAX_WORD_LENGTH (single letters are never words)."""
    if not 2 <= min_length <= MAX_WORD_LENGTH:
        raise InvalidArgument(
            f"min_length must be between 2 and {MAX_WORD_LENGTH}, got {min_length}",
            reason=MIN_LENGTH_OUT_OF_RANGE,
        )


def check_limit(limit: int) -> None:
    """Refuses a result limit outside 0..MAX_LIMIT."""
    if not 0 <= limit <= MAX_LIMIT:
        raise InvalidArgument(
            f"limit must be between 0 and {MAX_LIMIT}, got {limit}",
            reason=LIMIT_OUT_OF_RANGE,
            metadata={"max": str(MAX_LIMIT)},
        )
