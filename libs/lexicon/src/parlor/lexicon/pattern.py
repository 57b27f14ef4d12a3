"""Pattern search (``c?t``, ``qu*``, ``*ing``): a C-speed regex scan over words that fit.

Words are kept as one newline-separated string per length, so a pattern without
``*`` scans only words of its own length, and ``*`` patterns only lengths long
enough. Each ``*`` between fixed segments is an atomic "shortest run, then the
segment" group: glob matching is then linear, never the exponential backtracking
a naive ``.*`` translation risks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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

    def find(self, pattern: str) -> list[str]:
        """Words matching a normalised pattern, in alphabetical order."""
        fixed = len(pattern) - pattern.count(STAR)
        regex = _compile(pattern)
        if STAR not in pattern:
            blob = self._by_length.get(fixed)
            return regex.findall(blob) if blob else []
        found: list[str] = []
        for length, blob in self._by_length.items():
            if length >= fixed:
                found.extend(regex.findall(blob))
        found.sort()
        return found


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
