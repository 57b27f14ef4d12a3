"""Anagrams by walking a trie of sorted-letter signatures that is just a sorted array.

Every word is filed under its signature (its letters sorted: ``"cat"`` -> ``"act"``).
The distinct signatures, sorted, form an implicit trie: the signatures that start
with a prefix are one contiguous slice, found by bisection. A query walks that
trie in letter order, spending a held letter (or a blank) per step, and so only
visits signature prefixes that exist. No per-node objects: the index is one list
of strings, one offsets array and one tuple of words (see the package README for
the figures against a set of prefixes and a brute-force scan).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence

_A = ord("a")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_NEXT = {letter: chr(ord(letter) + 1) for letter in _LETTERS}  # "z" -> "{", past every word


class AnagramIndex:
    """Words grouped by signature, for finding every word a rack can spell."""

    __slots__ = ("_signatures", "_starts", "_words")

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
        self._signatures = signatures
        self._starts = starts
        self._words = tuple(words[index] for index in order)

    def __len__(self) -> int:
        return len(self._signatures)

    def find(
        self, counts: Sequence[int], blanks: int, *, min_length: int, use_all: bool
    ) -> list[str]:
        """Words spelled by letters ``counts`` (26 counts) plus ``blanks`` wildcards.

        With ``use_all`` a word must use every letter and blank; otherwise any
        subset of at least ``min_length`` letters. Order is unspecified.
        """
        signatures = self._signatures
        starts = self._starts
        words = self._words
        held = list(counts)
        total = sum(held) + blanks
        found: list[str] = []
        if not signatures:
            return found

        def visit(prefix: str, depth: int, lo: int, hi: int, blanks: int) -> None:
            # signatures[lo:hi] are exactly those starting with prefix (lo < hi).
            if len(signatures[lo]) == depth:
                if depth >= min_length and (not use_all or depth == total):
                    found.extend(words[starts[lo] : starts[lo + 1]])
                lo += 1
            if depth == total or lo == hi:
                return
            # With use_all, a held letter below the next child can never be used: stop there.
            lowest_held = 26
            if use_all:
                lowest_held = next((c for c in range(26) if held[c]), 26)
            if blanks:
                # Every existing child is reachable: step through them by bisection.
                while lo < hi:
                    letter = signatures[lo][depth]
                    code = ord(letter) - _A
                    if code > lowest_held:
                        return
                    end = bisect_left(signatures, prefix + _NEXT[letter], lo, hi)
                    if end - lo == 1 and len(signatures[lo]) == depth + 1:
                        # A leaf: spend the tile and emit here rather than recurse.
                        if depth + 1 >= min_length and (not use_all or depth + 1 == total):
                            found.extend(words[starts[lo] : starts[lo + 1]])
                    elif held[code]:
                        held[code] -= 1
                        visit(prefix + letter, depth + 1, lo, end, blanks)
                        held[code] += 1
                    else:
                        visit(prefix + letter, depth + 1, lo, end, blanks - 1)
                    lo = end
                return
            # No blanks: only children the rack holds, in letter order.
            first = ord(signatures[lo][depth]) - _A
            candidates = (lowest_held,) if use_all else range(first, 26)
            for code in candidates:
                if code == 26 or not held[code]:
                    continue
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
