"""Anagrams and patterns agree with brute force over small random word lists."""

from __future__ import annotations

import fnmatch
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.lexicon import MAX_LIMIT, Lexicon, enable1

# A small alphabet makes collisions (shared signatures, shared prefixes) common.
ALPHABET = "abeqstu"
words_strategy = st.lists(st.text(ALPHABET, min_size=2, max_size=7), max_size=60)
letters_strategy = st.text(ALPHABET, min_size=1, max_size=8)


def brute_anagrams(
    words: list[str], letters: str, blanks: int, min_length: int, use_all: bool
) -> set[str]:
    held = Counter(letters)
    total = len(letters) + blanks
    found = set()
    for word in set(words):
        missing = sum((Counter(word) - held).values())
        if missing > blanks or not min_length <= len(word) <= total:
            continue
        if use_all and len(word) != total:
            continue
        found.add(word)
    return found


@settings(max_examples=300, deadline=None)
@given(
    words_strategy,
    letters_strategy,
    st.integers(0, 3),
    st.integers(2, 5),
    st.booleans(),
)
def test_anagrams_match_brute_force(
    words: list[str], letters: str, blanks: int, min_length: int, use_all: bool
) -> None:
    lexicon = Lexicon("random", words)
    rack = letters + "?" * blanks
    found = lexicon.anagrams(rack, min_length=min_length, use_all=use_all, limit=MAX_LIMIT)
    assert len(found) == len(set(found))
    assert set(found) == brute_anagrams(words, letters, blanks, min_length, use_all)


@settings(max_examples=100, deadline=None)
@given(words_strategy, letters_strategy)
def test_anagrams_come_longest_first_then_alphabetical(words: list[str], letters: str) -> None:
    found = Lexicon("random", words).anagrams(letters, limit=MAX_LIMIT)
    assert found == sorted(found, key=lambda word: (-len(word), word))


@settings(max_examples=300, deadline=None)
@given(words_strategy, st.text(ALPHABET + "?*", min_size=1, max_size=9))
def test_pattern_matches_brute_force(words: list[str], pattern: str) -> None:
    lexicon = Lexicon("random", words)
    expected = sorted({word for word in words if fnmatch.fnmatchcase(word, pattern)})
    assert lexicon.pattern(pattern, limit=MAX_LIMIT) == expected


def test_anagrams_of_a_seven_letter_rack_in_enable() -> None:
    enable = enable1()
    assert enable.anagrams("retains", use_all=True) == [
        "anestri",
        "antsier",
        "nastier",
        "ratines",
        "retains",
        "retinas",
        "retsina",
        "stainer",
        "stearin",
    ]
    assert "satire" in enable.anagrams("retains", min_length=6)
    assert enable.anagrams("cat") == ["act", "cat", "at", "ta"]


def test_a_blank_stands_for_any_one_letter() -> None:
    enable = enable1()
    assert enable.anagrams("c?t", use_all=True) == ["act", "cat", "cot", "cut", "tic"]
    assert enable.anagrams("??", use_all=True, limit=MAX_LIMIT) == enable.pattern(
        "??", limit=MAX_LIMIT
    )
    assert set(enable.anagrams("zyzzyva?", use_all=True)) == {"zyzzyvas"}


def test_pattern_in_enable() -> None:
    enable = enable1()
    assert enable.pattern("c?t") == ["cat", "cot", "cut"]
    assert enable.pattern("quixotic") == ["quixotic"]
    assert enable.pattern("xyzzy") == []
    assert enable.pattern("zyzz*") == ["zyzzyva", "zyzzyvas"]
    assert enable.pattern("*", limit=MAX_LIMIT) == list(enable.words())[:MAX_LIMIT]
    assert all(word.endswith("ing") for word in enable.pattern("*ing", limit=MAX_LIMIT))


@settings(max_examples=200, deadline=None)
@given(words_strategy, st.text(ALPHABET, max_size=4))
def test_prefix_queries_match_brute_force(words: list[str], prefix: str) -> None:
    lexicon = Lexicon("random", words)
    expected = sorted({word for word in words if word.startswith(prefix)})
    assert list(lexicon.words(prefix)) == expected
    assert lexicon.has_prefix(prefix) is bool(expected)
