"""Searches are bounded: a limit stops the work early, and the worst rack a client may send
is refused within the step budget instead of holding a CPU (counted steps, not wall time)."""

from __future__ import annotations

import pytest

from parlor.core.errors import InvalidArgument, ResourceExhausted
from parlor.lexicon import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_PATTERN_LENGTH,
    MAX_SEARCH_STEPS,
    MAX_TILES,
    SEARCH_TOO_BROAD,
    TOO_MANY_TILES,
    WORD_TOO_LONG,
    Budget,
    enable1,
)

# 16 tiles, 4 of them blanks: the largest rack a client may send, and (found by a random
# search over such racks) one of the costliest: ~280,000 steps for 1,000 words unbounded.
WORST_RACK = "xipwfqaguieu????"


def test_the_default_limit_and_the_cap() -> None:
    enable = enable1()
    assert len(enable.anagrams("aeinrst?")) == DEFAULT_LIMIT
    assert len(enable.pattern("*")) == DEFAULT_LIMIT
    assert len(enable.pattern("*", limit=MAX_LIMIT)) == MAX_LIMIT


def test_oversize_racks_and_patterns_are_refused_with_the_reason() -> None:
    enable = enable1()
    with pytest.raises(InvalidArgument) as caught:
        enable.anagrams("e" * (MAX_TILES + 1))
    assert caught.value.reason == TOO_MANY_TILES
    with pytest.raises(InvalidArgument) as caught:
        enable.pattern("?" * (MAX_PATTERN_LENGTH + 1))
    assert caught.value.reason == WORD_TOO_LONG
    assert caught.value.metadata["max"] == str(MAX_PATTERN_LENGTH)


def test_a_limit_stops_the_search_early() -> None:
    enable = enable1()
    few, many = Budget(10**9), Budget(10**9)
    first = enable.anagrams("etaoinshrdlu??", limit=10, budget=few)
    more = enable.anagrams("etaoinshrdlu??", limit=MAX_LIMIT, budget=many)
    assert first == more[:10]
    assert len(more) == MAX_LIMIT
    # Ten of the longest words need only the longest lengths walked.
    assert few.spent * 3 < many.spent


def test_the_worst_allowed_rack_stops_at_the_step_budget() -> None:
    enable = enable1()
    unbounded = Budget(10**9)
    assert len(enable.anagrams(WORST_RACK, limit=MAX_LIMIT, budget=unbounded)) == MAX_LIMIT
    assert unbounded.spent > MAX_SEARCH_STEPS  # the case the budget exists for
    budget = Budget(MAX_SEARCH_STEPS)
    with pytest.raises(ResourceExhausted) as caught:
        enable.anagrams(WORST_RACK, limit=MAX_LIMIT, budget=budget)
    assert caught.value.reason == SEARCH_TOO_BROAD
    assert budget.spent == MAX_SEARCH_STEPS + 1  # refused at the first step past it


@pytest.mark.parametrize(
    ("rack", "use_all", "longest"),
    [
        ("retains", False, "anestri"),
        ("aeinrst?", False, "angriest"),
        ("aeinrstlod????", False, "aldosteronisms"),
        (WORST_RACK, True, None),
    ],
)
def test_racks_a_game_deals_fit_the_budget(rack: str, use_all: bool, longest: str | None) -> None:
    budget = Budget(MAX_SEARCH_STEPS)
    found = enable1().anagrams(rack, use_all=use_all, budget=budget)
    assert (found[0] if found else None) == longest
    assert 0 < budget.spent <= MAX_SEARCH_STEPS


def test_a_pattern_search_is_found_as_it_is_read() -> None:
    """An iterator over the matches, merged across lengths: a limit stops the scan."""
    index = enable1()._pattern_index()
    matches = index.find("*")
    assert not isinstance(matches, list)
    assert [next(matches) for _ in range(3)] == ["aa", "aah", "aahed"]
    assert list(index.find("zyzz*")) == ["zyzzyva", "zyzzyvas"]


def test_a_budget_pauses_every_so_many_steps() -> None:
    """The service's hook to hand the GIL to its event loop during a long search."""
    pauses: list[int] = []
    budget = Budget(MAX_SEARCH_STEPS, pause=lambda: pauses.append(budget.left), every=1000)
    enable1().anagrams("aeinrstlod????", budget=budget)
    assert len(pauses) == budget.spent // 1000 > 10
    assert all(left % 1000 == 0 for left in pauses)
