"""The store every game service opens counts its appends and conflicts, by category."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from parlor.core.errors import Conflict
from parlor.eventstore import NO_STREAM, InMemoryEventStore, NewEvent, PostgresEventStore

pytestmark = pytest.mark.integration


def appended(category: str) -> float:
    return REGISTRY.get_sample_value("parlor_game_appends_total", {"category": category}) or 0.0


async def test_appends_and_conflicts_are_counted_and_labelled_with_the_streams_category(
    migrated_url: str, unique: str
) -> None:
    category = f"countgame{unique}"
    before = appended(category)
    store = PostgresEventStore(migrated_url)
    try:
        await store.append(f"{category}-g1", [NewEvent("A", b"")], NO_STREAM)
        with pytest.raises(Conflict):
            await store.append(f"{category}-g1", [NewEvent("B", b"")], NO_STREAM)
        await store.append(f"{category}-g1", [NewEvent("B", b"")], 1)
    finally:
        await store.close()
    assert (store.appends, store.conflicts) == (3, 1)
    assert appended(category) - before == 3
    conflicts = REGISTRY.get_sample_value("parlor_append_conflicts_total", {"category": category})
    assert conflicts == 1


async def test_the_memory_store_counts_the_same_way(unique: str) -> None:
    store = InMemoryEventStore()
    await store.append(f"mem{unique}-g1", [NewEvent("A", b"")], NO_STREAM)
    with pytest.raises(Conflict):
        await store.append(f"mem{unique}-g1", [NewEvent("B", b"")], NO_STREAM)
    assert (store.appends, store.conflicts) == (2, 1)
