"""One game the turn feed cannot fold must not hold back every other game's notices.

Seen in a fresh-clone CI run: the starter bots waited for ever for their first "your turn"
because an earlier test had left a game in the shared database that the feed's step failed
on, and a failed step was tried again from the same position, failing again."""

from __future__ import annotations

from typing import Any

import pytest

from parlor.eventstore import NO_STREAM, InMemoryEventStore, NewEvent
from parlor.services.matchmaking.games import GAME_TYPES
from parlor.services.matchmaking.turnfeed import TurnFeed


async def test_a_game_that_cannot_be_folded_is_passed_over_and_the_rest_are_noticed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = InMemoryEventStore()
    for game_id in ("broken", "fine"):
        await store.append(f"connect4x4-{game_id}", [NewEvent("Anything", b"")], NO_STREAM)
    feed = TurnFeed(store, [GAME_TYPES["connect4x4"]])
    noticed: list[str] = []

    async def notice(game: Any, game_id: str) -> int:
        if game_id == "broken":
            raise ValueError("cannot fold this stream")
        noticed.append(game_id)
        return 1

    monkeypatch.setattr(feed, "_notice", notice)
    assert await feed.step() == 1
    assert noticed == ["fine"]
    assert feed.covered["connect4x4"] == 2  # both games covered: not tried again
    assert await feed.step() == 0
