"""Pattern search (``c?t``, ``qu*``, ``*ing``): a C-speed regex scan over words that fit.

Words are kept as one newline-separated string per length, so a pattern without
``*`` scans only words of its own length, and ``*`` patterns only lengths long
enough. Each ``*`` between fixed segments is an atomic "shortest run, then the
segment" group: glob matching is then linear, never the exponential backtracking
a naive ``.*`` translation risks.

Matches are found lazily (``re.finditer``; for ``*`` patterns one iterator per length,
merged in alphabetical order), so a search with a limit stops scanning once it has enough.
The worst case, a pattern that matches almost nothing, is one linear scan of the list
(each word at most once, never backtracking across words).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from .query import BLANK, STAR


class PatternIndex:
    """Words by length, each length one ``\\n``-joined string to run a regex over."""

    __slots__ = ("_by_length",)

    def __init__(self, words: Sequence[str]) -> None:
        grouped: dict[int, list[str]] = {}
        for word in words:
            grouped.setdefault(len(word), []).append(word)
        self._by_length = {
            length: "\n" + "\n".join(group) + "\n" for length, group in sorted(grouped.items())
        }

    def find(self, pattern: str) -> Iterator[str]:
        """Words matching a normalised pattern, in alphabetical order, found as they are read."""
        fixed = len(pattern) - pattern.count(STAR)
        regex = _compile(pattern)
        if STAR not in pattern:
            blob = self._by_length.get(fixed)
            return _matches(regex, blob) if blob else iter(())
        return heapq.merge(
            *(_matches(regex, blob) for length, blob in self._by_length.items() if length >= fixed)
        )


def _matches(regex: re.Pattern[str], blob: str) -> Iterator[str]:
    for match in regex.finditer(blob):
        yield match.group(1)


def _segment(text: str) -> str:
    return text.replace(BLANK, "[a-z]")


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    """Translates a glob over a-z into a regex matching whole ``\\n``-delimited words."""
    segments = pattern.split(STAR)
    if len(segments) == 1:
        body = _segment(pattern)
    else:
        head, *middle, tail = segments
        body = _segment(head)
        body += "".join(f"(?>[a-z]*?{_segment(part)})" for part in middle if part)
        body += "[a-z]*" + _segment(tail)
    return re.compile(f"\\n({body})(?=\\n)")
