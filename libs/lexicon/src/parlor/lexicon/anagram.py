"""Anagrams by walking, one word length at a time, a trie of sorted-letter signatures.

Every word is filed under its signature (its letters sorted: ``"cat"`` -> ``"act"``), and
the signatures of each word length are kept apart. The distinct signatures of one length,
sorted, form an implicit trie: the signatures that start with a prefix are one contiguous
slice, found by bisection. A query walks that trie in letter order, spending a held letter
(or a blank) per step, and so only visits signature prefixes that exist. No per-node
objects: each length is one list of strings, one offsets array and one tuple of words.

One length at a time is what lets a search stop early: results come longest first, so
``Lexicon.anagrams`` walks the longest length, then the next, and stops once it has
``limit`` words. Every step of every walk is charged to a ``Budget``: the work of a query
is bounded by the budget, whatever the rack, and a query that would need more is refused
(``SEARCH_TOO_BROAD``) instead of holding a CPU.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence

from parlor.core.errors import ResourceExhausted

from .query import SEARCH_TOO_BROAD

_A = ord("a")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_NEXT = {letter: chr(ord(letter) + 1) for letter in _LETTERS}  # "z" -> "{", past every word


class Budget:
    """Steps a search may still take; ``spend`` raises ResourceExhausted when they run out.

    ``pause``, if given, is called every ``every`` steps: a service running searches in a
    thread passes ``time.sleep(0)`` there, handing the GIL to its event loop.
    """

    __slots__ = ("every", "left", "limit", "pause")

    def __init__(
        self, limit: int, *, pause: Callable[[], object] | None = None, every: int = 1000
    ) -> None:
        self.limit = limit
        self.left = limit
        self.pause = pause
        self.every = every

    @property
    def spent(self) -> int:
        return self.limit - self.left

    def spend(self) -> None:
        self.left -= 1
        if self.pause is not None and not self.left % self.every:
            self.pause()
        if self.left < 0:
            raise ResourceExhausted(
                f"this search needs more than {self.limit} steps: use fewer blanks or tiles, "
                "a larger min_length, or use_all",
                reason=SEARCH_TOO_BROAD,
                metadata={"max_steps": str(self.limit)},
            )


class _Length:
    """The signatures of the words of one length, sorted, and the words filed under each."""

    __slots__ = ("signatures", "starts", "words")

    def __init__(self, words: Sequence[str]) -> None:
        signature_of = ["".join(sorted(word)) for word in words]
        order = sorted(range(len(words)), key=signature_of.__getitem__)
        signatures: list[str] = []
        starts = array("I")
        previous = ""
        for position, index in enumerate(order):
            signature = signature_of[index]
            if signature != previous:
                signatures.append(signature)
                starts.append(position)
                previous = signature
        starts.append(len(order))
        self.signatures = signatures
        self.starts = starts
        self.words = tuple(words[index] for index in order)


class AnagramIndex:
    """Words grouped by length and signature, for finding every word a rack can spell."""

    __slots__ = ("_lengths",)

    def __init__(self, words: Sequence[str]) -> None:
        grouped: dict[int, list[str]] = {}
        for word in words:
            grouped.setdefault(len(word), []).append(word)
        self._lengths = {n: _Length(group) for n, group in sorted(grouped.items())}

    def __len__(self) -> int:
        return sum(len(shelf.signatures) for shelf in self._lengths.values())

    def longest(self) -> int:
        """The length of the longest word (0 for no words)."""
        return max(self._lengths, default=0)

    def find(self, counts: Sequence[int], blanks: int, length: int, budget: Budget) -> list[str]:
        """Words of exactly ``length`` letters spelled by ``counts`` (26 counts) plus ``blanks``.

        Order is unspecified. Each visited trie node and each child tried costs one step.
        """
        shelf = self._lengths.get(length)
        held = list(counts)
        if shelf is None or sum(held) + blanks < length:
            return []
        signatures = shelf.signatures
        starts = shelf.starts
        words = shelf.words
        found: list[str] = []

        def visit(prefix: str, depth: int, lo: int, hi: int, blanks: int) -> None:
            # signatures[lo:hi] are exactly those starting with prefix (lo < hi).
            budget.spend()
            if depth == length:
                found.extend(words[starts[lo] : starts[hi]])
                return
            after = length - depth - 1  # letters the word still needs after the next one
            # Signatures are sorted: once the next letter is ``code``, only held letters from
            # ``code`` on (and blanks) can follow. Children come in letter order, so the first
            # child that leaves too few ends the loop.
            if blanks:
                # Every existing child is reachable: step through them by bisection.
                while lo < hi:
                    budget.spend()
                    letter = signatures[lo][depth]
                    code = ord(letter) - _A
                    if sum(held[code:]) + blanks - 1 < after:
                        return
                    end = bisect_left(signatures, prefix + _NEXT[letter], lo, hi)
                    if held[code]:
                        held[code] -= 1
                        visit(prefix + letter, depth + 1, lo, end, blanks)
                        held[code] += 1
                    else:
                        visit(prefix + letter, depth + 1, lo, end, blanks - 1)
                    lo = end
                return
            # No blanks: only children the rack holds, in letter order.
            for code in range(ord(signatures[lo][depth]) - _A, 26):
                if not held[code]:
                    continue
                if sum(held[code:]) - 1 < after:
                    return
                budget.spend()
                child = prefix + _LETTERS[code]
                start = bisect_left(signatures, child, lo, hi)
                if start < hi and signatures[start].startswith(child):
                    end = bisect_left(signatures, prefix + _NEXT[_LETTERS[code]], start, hi)
                    held[code] -= 1
                    visit(child, depth + 1, start, end, 0)
                    held[code] += 1
                    lo = end
                if lo == hi:
                    return

        visit("", 0, 0, len(signatures), blanks)
        return found
