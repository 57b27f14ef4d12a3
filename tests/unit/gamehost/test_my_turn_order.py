"""``ListGames`` with ``my_turn_first``: the order, and its page tokens (``myturn``)."""

from __future__ import annotations

import datetime as dt

import pytest

from parlor.core.errors import InvalidArgument
from parlor.directory.listed import Listed
from parlor.gamehost.wire.myturn import Waiting, key_of, ordered, token_of

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def game(game_id: str, to_move: bool, hours: int | None, created: int = 0) -> Waiting:
    listed = Listed(game_id, ("ada", "bob"), ("Ada", "Bob"), T0 + dt.timedelta(minutes=created),
                    None, "", 3)  # fmt: skip
    deadline = None if hours is None else T0 + dt.timedelta(hours=hours)
    return Waiting(listed, to_move, deadline)


def test_waiting_for_you_first_by_deadline_then_the_rest_newest_first() -> None:
    games = [
        game("theirs-old", False, 5, created=1),
        game("late", True, 30),
        game("untimed", True, None),
        game("theirs-new", False, None, created=2),
        game("soon", True, 2),
    ]
    assert [g.listed.game_id for g in ordered(games)] == [
        "soon", "late", "untimed", "theirs-new", "theirs-old"
    ]  # fmt: skip


def test_a_page_token_is_the_key_of_the_last_game_and_a_bad_one_is_refused() -> None:
    first = ordered([game("a", True, 1), game("b", True, None), game("c", False, None)])
    key = first[1].key
    assert key_of(token_of(key)) == key
    assert [g.listed.game_id for g in first if g.key > key] == ["c"]
    assert key_of("") is None
    for bad in ("2026-01-01T00:00:00|g", "t|1|2", "t|x|0|0|0|g", "t|0|0|0|0|g\x00"):
        with pytest.raises(InvalidArgument) as refused:
            key_of(bad)
        assert refused.value.reason == "INVALID_PAGE_TOKEN"
