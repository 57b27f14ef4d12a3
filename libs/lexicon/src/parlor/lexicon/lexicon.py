"""A lexicon: an immutable word list named by its content.

A game records the id, so a replay checks words against the very same list.
"""

from __future__ import annotations

import hashlib
import re
import threading
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from operator import lt

from parlor.core.errors import InvalidArgument

from .anagram import AnagramIndex, Budget
from .pattern import PatternIndex
from .query import (
    DEFAULT_LIMIT,
    INVALID_LEXICON_NAME,
    MAX_SEARCH_STEPS,
    MAX_WORD_LENGTH,
    check_batch_size,
    check_limit,
    check_min_length,
    normalise_batch_word,
    normalise_pattern,
    normalise_word,
)
from .rack import Rack

_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")
_WORD = re.compile(rf"[a-z]{{2,{MAX_WORD_LENGTH}}}")
_OUTSIDE_FAST_PATH = re.compile(r"[^a-z\n]")


class Lexicon:
    """An immutable set of words: lowercase a-z, 2 to 64 letters.

    ``id`` is ``<name>-<first 12 hex digits of the SHA-256 of the sorted words, one per line>``:
    the same words always give the same id, and one changed word gives a new one.

    Fast paths for rule engines and bots take words already in lexicon form (lowercase
    a-z) and never raise: ``word in lexicon``, ``has_prefix``, ``words(prefix)``.
    Service-facing queries normalise and validate their input and raise
    ``InvalidArgument`` with a reason: ``check``, ``check_many``, ``anagrams``, ``pattern``.
    """

    __slots__ = ("_anagrams", "_build", "_patterns", "_set", "_words", "id", "name", "skipped")

    def __init__(self, name: str, words: Iterable[str]) -> None:
        """Keeps the entries that are words (a-z only, 2-64 letters); ``skipped`` counts the rest.

        Entries with anything else (capitals of proper nouns, abbreviations with
        dots, hyphens, apostrophes, digits, spaces inside) are left out, not
        repaired: lowercasing ``Paris`` would invent a word. Surrounding whitespace
        is stripped; blank entries and duplicates are ignored.
        """
        self._fill(name, *_keep_words(words))

    def _fill(self, name: str, kept: list[str], skipped: int) -> None:
        if not _NAME.fullmatch(name):
            raise InvalidArgument(
                f"lexicon name {name!r} must be 1-40 of a-z, 0-9, '_', '.', '-'",
                reason=INVALID_LEXICON_NAME,
            )
        unique = frozenset(kept)
        if len(unique) == len(kept) and all(map(lt, kept, islice(kept, 1, None))):
            ordered = tuple(kept)
        else:
            ordered = tuple(sorted(unique))
        listing = "\n".join(ordered) + "\n" if ordered else ""
        digest = hashlib.sha256(listing.encode("ascii"))
        self.name = name
        self.id = f"{name}-{digest.hexdigest()[:12]}"
        self.skipped = skipped
        self._words = ordered
        self._set = unique
        self._anagrams: AnagramIndex | None = None
        self._patterns: PatternIndex | None = None
        self._build = threading.Lock()

    @classmethod
    def from_text(cls, name: str, text: str | bytes) -> Lexicon:
        """Reads one entry per line (UTF-8 if bytes; undecodable lines are skipped as non-words)."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        text = text.removeprefix("\ufeff")  # a byte-order mark would hide the first word
        if _OUTSIDE_FAST_PATH.search(text):
            return cls(name, text.splitlines())
        # Fast path: only a-z and newlines, so every line is clean already.
        entries = text.split("\n")
        kept = [word for word in entries if 1 < len(word) <= MAX_WORD_LENGTH]
        lexicon = cls.__new__(cls)
        lexicon._fill(name, kept, sum(1 for word in entries if word) - len(kept))
        return lexicon

    def __repr__(self) -> str:
        return f"Lexicon(id={self.id!r}, words={len(self._words)})"

    def __len__(self) -> int:
        return len(self._words)

    def __contains__(self, word: object) -> bool:
        """Membership of a word already in lexicon form; no normalisation, never raises."""
        return word in self._set

    def has_prefix(self, prefix: str) -> bool:
        """Whether some word starts with ``prefix`` (lexicon form; "" if any word at all)."""
        words = self._words
        index = bisect_left(words, prefix)
        return index < len(words) and words[index].startswith(prefix)

    def words(self, prefix: str = "") -> Iterator[str]:
        """The words in alphabetical order, or only those starting with ``prefix``."""
        words = self._words
        if not prefix:
            return iter(words)
        start = bisect_left(words, prefix)
        end = bisect_left(words, prefix + "{", start)  # "{" sorts just after "z"
        return islice(words, start, end)

    def check(self, word: str) -> bool:
        """Whether ``word`` is a word, ignoring case and surrounding whitespace.

        A single letter is never a word (False, not an error); empty input, non-letters
        and words over 64 characters raise ``InvalidArgument``.
        """
        # A hit needs no normalising: whatever is in the set is a well-formed word.
        return word in self._set or normalise_word(word) in self._set

    def check_many(self, words: Sequence[str]) -> list[bool]:
        """``check`` for up to 20,000 words at once, answers in the same order.

        Any malformed word fails the whole batch, its index in ``metadata["word_index"]``.
        """
        check_batch_size(len(words))
        members = self._set
        # A hit needs no normalising: whatever is in the set is a well-formed word.
        answers = [word in members for word in words]
        for position, answer in enumerate(answers):
            if not answer:
                answers[position] = normalise_batch_word(position, words[position]) in members
        return answers

    def anagrams(
        self,
        tiles: str | Sequence[str],
        *,
        min_length: int = 2,
        use_all: bool = False,
        limit: int = DEFAULT_LIMIT,
        budget: Budget | None = None,
    ) -> list[str]:
        """The first ``limit`` words the tiles can spell, longest first, then alphabetical.

        ``tiles`` is a string with one tile per character (``"retain?"``, ``?`` is a
        blank that stands for any one letter) or a sequence with one tile per item,
        where ``"qu"`` is Upwords' Qu tile (``["qu", "i", "t"]`` spells ``quit``;
        the Qu tile is only ever an adjacent ``qu``). With ``use_all`` every tile
        must be used; otherwise any subset spelling at least ``min_length`` letters.

        ``limit`` is 0 to MAX_LIMIT (default DEFAULT_LIMIT). The search walks one word
        length at a time, longest first, and stops once it has ``limit`` words; its steps
        are charged to ``budget`` (default: a fresh MAX_SEARCH_STEPS), and a search that
        needs more raises ``ResourceExhausted(SEARCH_TOO_BROAD)``.
        """
        check_min_length(min_length)
        check_limit(limit)
        rack = Rack.parse(tiles)
        budget = Budget(MAX_SEARCH_STEPS) if budget is None else budget
        index = self._anagram_index()
        counts = rack.letter_counts()
        letters = rack.letters
        lengths = [letters] if use_all else range(min(letters, index.longest()), min_length - 1, -1)
        found: list[str] = []
        for length in lengths:
            if len(found) >= limit or length < min_length:
                break
            words = index.find(counts, rack.blanks, length, budget)
            if rack.qu:
                words = [word for word in words if rack.spells(word)]
            words.sort()
            found.extend(words[: limit - len(found)])
        return found

    def pattern(self, pattern: str, *, limit: int = DEFAULT_LIMIT) -> list[str]:
        """The first ``limit`` words matching ``pattern``, alphabetical: ``?`` is one letter,
        ``*`` any run. ``limit`` is 0 to MAX_LIMIT (default DEFAULT_LIMIT); the scan stops
        once it has them, and is at worst one linear pass over the words."""
        check_limit(limit)
        normalised = normalise_pattern(pattern)
        if not limit:
            return []
        return list(islice(self._pattern_index().find(normalised), limit))

    def warm(self) -> Lexicon:
        """Builds the anagram and pattern indexes now (a service: before it reports ready)."""
        self._anagram_index()
        self._pattern_index()
        return self

    def _anagram_index(self) -> AnagramIndex:
        index = self._anagrams
        if index is None:
            with self._build:
                index = self._anagrams
                if index is None:
                    index = self._anagrams = AnagramIndex(self._words)
        return index

    def _pattern_index(self) -> PatternIndex:
        index = self._patterns
        if index is None:
            with self._build:
                index = self._patterns
                if index is None:
                    index = self._patterns = PatternIndex(self._words)
        return index


def _keep_words(entries: Iterable[str]) -> tuple[list[str], int]:
    kept: list[str] = []
    skipped = 0
    fullmatch = _WORD.fullmatch
    for entry in entries:
        word = entry.strip()
        if fullmatch(word):
            kept.append(word)
        elif word:
            skipped += 1
    return kept, skipped
