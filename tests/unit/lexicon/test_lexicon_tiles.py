"""Upwords' Qu tile: one tile that spells two letters of a word."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.core.errors import InvalidArgument
from parlor.lexicon import NOT_A_TILE, Lexicon, Rack, enable1, qu_tiles, spell


def test_qu_tile_spells_two_letters() -> None:
    assert spell(["Qu", "i", "t"]) == "quit"
    assert spell(["QU", "E", "E", "N"]) == "queen"
    assert len(spell(["qu"])) == 2


def test_quit_is_three_tiles() -> None:
    assert qu_tiles("quit") == ("qu", "i", "t")
    assert qu_tiles("quixotic") == ("qu", "i", "x", "o", "t", "i", "c")
    assert qu_tiles("cat") == ("c", "a", "t")


def test_q_without_u_cannot_be_laid_with_upwords_tiles() -> None:
    assert qu_tiles("qat") is None
    assert qu_tiles("faq") is None


def test_a_lone_qu_is_not_a_two_letter_word() -> None:
    assert not enable1().check(spell(["qu"]))


def test_spell_refuses_what_is_not_a_tile() -> None:
    for bad in (["q", "ui"], ["?"], ["1"]):
        with pytest.raises(InvalidArgument) as caught:
            spell(bad)
        assert caught.value.reason == NOT_A_TILE


def test_anagram_treats_qu_as_one_tile_when_given_as_one_item() -> None:
    enable = enable1()
    assert enable.anagrams(["qu", "i", "t"], use_all=True) == ["quit"]
    # The Qu tile is only ever an adjacent "qu": no "tui", no "qi".
    assert "tui" not in enable.anagrams(["qu", "i", "t"])
    assert enable.anagrams(["qu", "i"]) == []
    # The same letters as separate tiles make more words.
    assert "tui" in enable.anagrams("quit")
    assert enable.anagrams(["qu", "e", "e", "n"], use_all=True) == ["queen"]
    assert "quiet" in enable.anagrams(["qu", "i", "e", "t"], use_all=True)


def test_rack_counts_a_qu_tile_as_one_tile_and_two_letters() -> None:
    rack = Rack.parse(["Qu", "i", "?"])
    assert (rack.size, rack.letters, rack.qu, rack.blanks) == (3, 4, 1, 1)


def _brute_tile_words(words: list[str], tiles: list[str], use_all: bool) -> set[str]:
    """Every word some arrangement of some tiles spells (a blank tried as every letter)."""
    found: set[str] = set()
    vocabulary = set(words)
    letters = sorted({c for word in words for c in word})
    for size in range(1, len(tiles) + 1):
        if use_all and size != len(tiles):
            continue
        for arrangement in set(permutations(tiles, size)):
            spellings = [""]
            for tile in arrangement:
                options = letters if tile == "?" else [tile]
                spellings = [s + option for s in spellings for option in options]
            found.update(s for s in spellings if s in vocabulary and len(s) >= 2)
    return found


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text("quiet", min_size=2, max_size=6), max_size=40),
    st.lists(st.sampled_from(["qu", "q", "u", "i", "e", "t", "?"]), min_size=1, max_size=5),
    st.booleans(),
)
def test_anagrams_with_qu_tiles_match_brute_force(
    words: list[str], tiles: list[str], use_all: bool
) -> None:
    if Counter(tiles)["?"] > 1:
        tiles = [t for t in tiles if t != "?"] + ["?"]
    lexicon = Lexicon("random", words)
    found = lexicon.anagrams(tiles, use_all=use_all)
    assert set(found) == _brute_tile_words(words, tiles, use_all)
