"""The packaged ENABLE list: what is a word and what is not."""

from __future__ import annotations

import pytest

from parlor.lexicon import ENABLE1, Lexicon, enable1


@pytest.fixture(scope="module")
def enable() -> Lexicon:
    return enable1()


@pytest.mark.parametrize(
    "word", ["aa", "xu", "zax", "quixotic", "qat", "qaid", "cwm", "zyzzyvas", "retinas"]
)
def test_enable_knows_its_words(enable: Lexicon, word: str) -> None:
    assert word in enable
    assert enable.check(word)


@pytest.mark.parametrize("word", ["xyzzy", "a", "i", "teh", "qu", "aaa", "zzz"])
def test_enable_refuses_non_words(enable: Lexicon, word: str) -> None:
    assert word not in enable
    assert not enable.check(word)


@pytest.mark.parametrize("word", ["qi", "za"])
def test_enable_predates_qi_and_za(enable: Lexicon, word: str) -> None:
    """ENABLE (1997-2000) lacks the later tournament additions; a newer list is a new lexicon."""
    assert not enable.check(word)


def test_single_letters_are_never_words(enable: Lexicon) -> None:
    assert not any(len(word) < 2 for word in enable.words())
    assert enable.skipped == 2  # the shared copy lists "a" and "i"; they are left out


def test_enable_has_its_published_size_and_a_stable_id(enable: Lexicon) -> None:
    assert len(enable) == 172_820
    assert enable.name == ENABLE1
    assert enable.id == "enable1-f32e6fbdc4cf"


def test_enable_loads_once_per_process() -> None:
    assert enable1() is enable1()


def test_words_iterate_in_alphabetical_order(enable: Lexicon) -> None:
    words = list(enable.words())
    assert words == sorted(words)
    assert words[0] == "aa"
    assert words[-1] == "zyzzyvas"


def test_words_with_a_prefix_are_exactly_those_starting_with_it(enable: Lexicon) -> None:
    assert list(enable.words("zyzz")) == ["zyzzyva", "zyzzyvas"]
    assert list(enable.words("quixot")) == sorted(
        w for w in enable.words() if w.startswith("quixot")
    )
    assert list(enable.words("xyzzy")) == []


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("", True),
        ("q", True),
        ("quixo", True),
        ("quixotic", True),
        ("xyz", False),
        ("zyzzyvas", True),
        ("zyzzyvass", False),
        ("zy", True),
        ("zz", False),
        ("qz", False),
    ],
)
def test_has_prefix_tells_whether_any_word_starts_so(
    enable: Lexicon, prefix: str, expected: bool
) -> None:
    assert enable.has_prefix(prefix) is expected
