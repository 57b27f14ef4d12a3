"""A lexicon is named by its content: same words, same id; one word changed, a new id."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlor.core.errors import InvalidArgument
from parlor.lexicon import INVALID_LEXICON_NAME, Lexicon, lexicon_from_bytes, load_lexicon

WORDS = ["cat", "act", "dog", "god", "tac"]


def test_id_is_name_and_twelve_hex_digits_of_the_content_hash() -> None:
    lexicon = Lexicon("tiny", WORDS)
    name, digest = lexicon.id.split("-")
    assert name == "tiny"
    assert len(digest) == 12
    int(digest, 16)


@given(st.permutations(WORDS), st.integers(0, 4))
def test_id_ignores_order_duplicates_and_surrounding_whitespace(
    words: list[str], repeat: int
) -> None:
    noisy = [f"  {word}\t" for word in words] + words[:repeat] + ["", "   "]
    assert Lexicon("tiny", noisy).id == Lexicon("tiny", WORDS).id


@pytest.mark.parametrize(
    "changed",
    [
        ["cat", "act", "dog", "god"],
        ["cat", "act", "dog", "god", "tac", "odg"],
        ["cat", "act", "dog", "gods", "tac"],
    ],
)
def test_id_changes_when_one_word_changes(changed: list[str]) -> None:
    assert Lexicon("tiny", changed).id != Lexicon("tiny", WORDS).id


def test_id_is_the_same_from_text_bytes_gzip_and_file(tmp_path: Path) -> None:
    text = "\n".join(WORDS) + "\n"
    plain = tmp_path / "tiny.txt"
    plain.write_text(text)
    packed = tmp_path / "tiny.txt.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    ids = {
        Lexicon("tiny", WORDS).id,
        Lexicon.from_text("tiny", text).id,
        Lexicon.from_text("tiny", text.replace("\n", "\r\n")).id,
        lexicon_from_bytes("tiny", text.encode()).id,
        lexicon_from_bytes("tiny", text.encode("utf-8-sig")).id,
        load_lexicon(plain).id,
        load_lexicon(packed).id,
        load_lexicon(packed, "tiny").id,
    }
    assert len(ids) == 1


def test_entries_that_are_not_plain_lowercase_words_are_left_out() -> None:
    entries = ["Paris", "U.S.A.", "e-mail", "don't", "cafe", "café", "r2d2", "x", "ice cream", "ok"]
    lexicon = Lexicon("mixed", entries)
    assert list(lexicon.words()) == ["cafe", "ok"]
    assert lexicon.skipped == 8
    assert "paris" not in lexicon


def test_from_text_skips_the_same_entries_as_from_words() -> None:
    text = "Paris\ncafe\ne-mail\n\nok\nx\n"
    assert Lexicon.from_text("mixed", text).id == Lexicon("mixed", text.split("\n")).id
    assert Lexicon.from_text("mixed", text).skipped == 3


@pytest.mark.parametrize("name", ["", "Enable", "my list", "-x", "a" * 41])
def test_lexicon_name_must_be_a_simple_slug(name: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        Lexicon(name, WORDS)
    assert caught.value.reason == INVALID_LEXICON_NAME
