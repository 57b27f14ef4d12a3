"""What callers may ask: case and whitespace are forgiven; every malformed input gets its reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlor.core.errors import InvalidArgument, NotFound
from parlor.lexicon import (
    BATCH_TOO_LARGE,
    EMPTY_PATTERN,
    EMPTY_RACK,
    EMPTY_WORD,
    LIMIT_OUT_OF_RANGE,
    MAX_BATCH,
    MIN_LENGTH_OUT_OF_RANGE,
    NOT_A_LETTER,
    NOT_A_TILE,
    TOO_MANY_TILES,
    TOO_MANY_WILDCARDS,
    UNKNOWN_LEXICON,
    WORD_TOO_LONG,
    Lexicon,
    Registry,
    normalise_word,
)

LEXICON = Lexicon("small", ["cat", "act", "tact", "quit", "quite", "at", "ta", "dog"])


@pytest.mark.parametrize("asked", ["cat", "CAT", "Cat", "  cat", "cat\n", "\t CaT \r\n"])
def test_check_ignores_case_and_surrounding_whitespace(asked: str) -> None:
    assert LEXICON.check(asked)


def test_membership_fast_path_takes_only_lexicon_form() -> None:
    assert "cat" in LEXICON
    assert "CAT" not in LEXICON
    assert " cat" not in LEXICON
    assert 3 not in LEXICON


def test_check_many_answers_in_order() -> None:
    assert LEXICON.check_many(["cat", " DOG ", "tac", "a", "quit"]) == [
        True,
        True,
        False,
        False,
        True,
    ]
    assert LEXICON.check_many([]) == []


def test_check_many_takes_the_largest_batch() -> None:
    assert LEXICON.check_many(["cat"] * MAX_BATCH) == [True] * MAX_BATCH


def _reason(call: Callable[[], Any]) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        call()
    return caught.value


@pytest.mark.parametrize("asked", ["", "   ", "\n\t"])
def test_empty_word_is_refused(asked: str) -> None:
    assert _reason(lambda: LEXICON.check(asked)).reason == EMPTY_WORD


@pytest.mark.parametrize(
    ("asked", "index", "char"),
    [
        ("ca-t", 2, "-"),
        ("don't", 3, "'"),
        ("café", 3, "é"),
        (" ice cream ", 3, " "),
        ("r2d2", 1, "2"),
        ("\u212aa", 0, "\u212a"),
        ("u.s.", 1, "."),
    ],
)
def test_non_letter_is_refused_naming_character_and_index(
    asked: str, index: int, char: str
) -> None:
    error = _reason(lambda: LEXICON.check(asked))
    assert error.reason == NOT_A_LETTER
    assert error.metadata["index"] == str(index)
    assert error.metadata["character"] == char
    assert repr(char) in error.message


def test_word_over_64_letters_is_refused() -> None:
    assert LEXICON.check("a" * 64) is False
    error = _reason(lambda: LEXICON.check("a" * 65))
    assert error.reason == WORD_TOO_LONG


def test_batch_over_20000_words_is_refused() -> None:
    error = _reason(lambda: LEXICON.check_many(["cat"] * (MAX_BATCH + 1)))
    assert error.reason == BATCH_TOO_LARGE


def test_bad_word_in_a_batch_names_its_index() -> None:
    error = _reason(lambda: LEXICON.check_many(["cat", "dog", "d0g"]))
    assert error.reason == NOT_A_LETTER
    assert error.metadata["word_index"] == "2"
    assert error.metadata["index"] == "1"
    assert error.message.startswith("words[2]")


def test_normalise_word_gives_lexicon_form() -> None:
    assert normalise_word("  QuIxOtIc\n") == "quixotic"


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: LEXICON.anagrams(""), EMPTY_RACK),
        (lambda: LEXICON.anagrams("  "), EMPTY_RACK),
        (lambda: LEXICON.anagrams([]), EMPTY_RACK),
        (lambda: LEXICON.anagrams("ca-t"), NOT_A_LETTER),
        (lambda: LEXICON.anagrams("ca*t"), NOT_A_LETTER),
        (lambda: LEXICON.anagrams(["c", "at"]), NOT_A_TILE),
        (lambda: LEXICON.anagrams(["c", ""]), NOT_A_TILE),
        (lambda: LEXICON.anagrams("a" * 17), TOO_MANY_TILES),
        (lambda: LEXICON.anagrams(["a"] * 17), TOO_MANY_TILES),
        (lambda: LEXICON.anagrams("cat?????"), TOO_MANY_WILDCARDS),
        (lambda: LEXICON.anagrams("cat", min_length=1), MIN_LENGTH_OUT_OF_RANGE),
        (lambda: LEXICON.anagrams("cat", min_length=65), MIN_LENGTH_OUT_OF_RANGE),
        (lambda: LEXICON.anagrams("cat", limit=-1), LIMIT_OUT_OF_RANGE),
        (lambda: LEXICON.pattern(""), EMPTY_PATTERN),
        (lambda: LEXICON.pattern(" \t"), EMPTY_PATTERN),
        (lambda: LEXICON.pattern("c.t"), NOT_A_LETTER),
        (lambda: LEXICON.pattern("c[a]t"), NOT_A_LETTER),
        (lambda: LEXICON.pattern("?" * 33), WORD_TOO_LONG),
        (lambda: LEXICON.pattern("a*b*c*d*e*f*g*h*i*j"), TOO_MANY_WILDCARDS),
        (lambda: LEXICON.pattern("c?t", limit=-2), LIMIT_OUT_OF_RANGE),
        (lambda: LEXICON.pattern("c?t", limit=1001), LIMIT_OUT_OF_RANGE),
        (lambda: LEXICON.anagrams("cat", limit=1001), LIMIT_OUT_OF_RANGE),
    ],
)
def test_bad_anagram_and_pattern_input_gets_its_reason(
    call: Callable[[], Any], reason: str
) -> None:
    assert _reason(call).reason == reason


def test_unknown_lexicon_is_not_found() -> None:
    registry = Registry([LEXICON])
    with pytest.raises(NotFound) as caught:
        registry.get("collins2019")
    assert caught.value.reason == UNKNOWN_LEXICON
    with pytest.raises(NotFound):
        Registry().get()


def test_rack_and_pattern_ignore_case_and_whitespace() -> None:
    assert LEXICON.anagrams(" TaC ") == LEXICON.anagrams("tac")
    assert LEXICON.anagrams(["Qu", " I ", "T"]) == ["quit"]
    assert LEXICON.pattern("  C?T ") == ["cat"]


def test_runs_of_stars_count_as_one() -> None:
    assert LEXICON.pattern("**c***t") == LEXICON.pattern("*c*t") == ["act", "cat", "tact"]


def test_limit_keeps_the_first_results() -> None:
    assert LEXICON.anagrams("tact", limit=2) == ["tact", "act"]
    assert LEXICON.pattern("*", limit=3) == ["act", "at", "cat"]
    assert LEXICON.pattern("*", limit=0) == []


@given(
    st.text(" \t\n", max_size=3),
    st.text("caTDOGquIE-'é ", min_size=1, max_size=8),
    st.text(" \t\r\n", max_size=3),
)
def test_check_is_membership_of_the_stripped_lowercase_word_or_a_named_error(
    before: str, core: str, after: str
) -> None:
    asked = before + core + after
    stripped = asked.strip()
    offending = [i for i, c in enumerate(stripped) if not (c.isascii() and c.isalpha())]
    if not stripped or offending:
        with pytest.raises(InvalidArgument) as caught:
            LEXICON.check(asked)
        if not stripped:
            assert caught.value.reason == EMPTY_WORD
        else:
            assert caught.value.reason == NOT_A_LETTER
            assert caught.value.metadata["index"] == str(offending[0])
            assert caught.value.metadata["character"] == stripped[offending[0]]
        return
    answer = LEXICON.check(asked)
    assert answer is (stripped.lower() in LEXICON)
    assert LEXICON.check_many([asked]) == [answer]
