"""Replicas running the turn feed side by side notice each game once between them.

Each replica's step used to fold every game touched since its own mark and append each
notice again (found a duplicate by its command id): a store read and an append per move
and replica. A replica now takes up the mark another stored, and skips what it covers."""

from __future__ import annotations

from typing import Any

import pytest

from parlor.eventstore import NO_STREAM, InMemoryEventStore, NewEvent
from parlor.services.matchmaking.games import GAME_TYPES
from parlor.services.matchmaking.turnfeed import TurnFeed


def counted(feed: TurnFeed, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    noticed: list[str] = []

    async def notice(game: Any, game_id: str) -> int:
        noticed.append(game_id)
        return 1

    monkeypatch.setattr(feed, "_notice", notice)
    return noticed


async def test_a_replica_skips_what_another_has_covered_and_notices_what_came_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = InMemoryEventStore()
    one, two = (TurnFeed(store, [GAME_TYPES["connect4x4"]]) for _ in range(2))
    by_one, by_two = counted(one, monkeypatch), counted(two, monkeypatch)
    await store.append("connect4x4-first", [NewEvent("Anything", b"")], NO_STREAM)

    assert await one.step() == 1
    assert await two.step() == 0  # covered by the first replica's mark: nothing folded again
    assert (by_one, by_two) == (["first"], [])

    await store.append("connect4x4-second", [NewEvent("Anything", b"")], NO_STREAM)
    assert await two.step() == 1  # news after the mark: this replica notices it
    assert await one.step() == 0
    assert (by_one, by_two) == (["first"], ["second"])


async def test_an_idle_step_reads_no_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    store = InMemoryEventStore()
    feed = TurnFeed(store, [GAME_TYPES["connect4x4"]])
    counted(feed, monkeypatch)
    await store.append("connect4x4-first", [NewEvent("Anything", b"")], NO_STREAM)
    await feed.step()
    await feed.step()  # its own mark moved the head: covered now
    reads: list[str] = []
    version = store.stream_version

    async def stream_version(stream_id: str) -> int:
        reads.append(stream_id)
        return await version(stream_id)

    monkeypatch.setattr(store, "stream_version", stream_version)
    assert await feed.step() == 0
    assert reads == []
