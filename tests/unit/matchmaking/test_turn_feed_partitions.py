"""The turn feed follows each partition of the store's order with a position of its own,
and a feed started again goes on from the mark it kept (one position a partition)."""

from __future__ import annotations

from typing import Any

import pytest

from parlor.eventstore import NO_STREAM, InMemoryEventStore, NewEvent
from parlor.eventstore.partitions import partition_of
from parlor.services.matchmaking.games import GAME_TYPES
from parlor.services.matchmaking.turnfeed import TurnFeed


def feed_noticing(
    store: InMemoryEventStore, noticed: list[str], monkeypatch: pytest.MonkeyPatch
) -> TurnFeed:
    feed = TurnFeed(store, [GAME_TYPES["connect4x4"]])

    async def notice(game: Any, game_id: str) -> int:
        noticed.append(game_id)
        return 1

    monkeypatch.setattr(feed, "_notice", notice)
    return feed


@pytest.mark.parametrize("partitions", [1, 4], ids=["P1", "P4"])
async def test_every_game_touched_in_any_partition_is_noticed_once_and_after_a_restart(
    monkeypatch: pytest.MonkeyPatch, partitions: int
) -> None:
    store = InMemoryEventStore(partitions=partitions)
    games = [f"g{n}" for n in range(8)]
    for game_id in games:
        await store.append(f"connect4x4-{game_id}", [NewEvent("Anything", b"")], NO_STREAM)
    if partitions > 1:
        assert len({partition_of(f"connect4x4-{g}", partitions) for g in games}) > 1
    noticed: list[str] = []
    feed = feed_noticing(store, noticed, monkeypatch)
    assert await feed.step() == len(games)
    assert sorted(noticed) == games
    assert await feed.step() == 0  # nothing new in any partition

    await store.append("connect4x4-g3", [NewEvent("Anything", b"")], 1)
    await store.append("connect4x4-g6", [NewEvent("Anything", b"")], 1)
    noticed.clear()
    again = feed_noticing(store, noticed, monkeypatch)  # a restart: from the kept mark
    assert await again.step() == 2
    assert sorted(noticed) == ["g3", "g6"]
