"""The tournament catalogue follows each partition of the store's order from a position of
its own: every tournament created in any partition is listed, each once, at each ask."""

from __future__ import annotations

from typing import Any

import pytest

from parlor.eventstore import InMemoryEventStore
from parlor.eventstore.partitions import partition_of
from parlor.services.tournament.tournaments import Tournaments, stream_of
from parlor.tournamentrules import Create, Join
from parlor.tournamentrules.settings import Settings

SWISS = Settings("SWISS", "connect4x4", max_players=4, rounds=3)


@pytest.mark.parametrize("partitions", [1, 4], ids=["P1", "P4"])
async def test_every_tournament_of_any_partition_is_catalogued(partitions: int) -> None:
    store = InMemoryEventStore(partitions=partitions)
    tournaments = Tournaments(store)
    first = [f"t{n}" for n in range(6)]
    for tournament_id in first:
        await tournaments.execute(tournament_id, lambda _: Create(SWISS, "org", 0), "org")
    assert sorted(await tournaments.catalogue()) == first
    later = [f"u{n}" for n in range(6)]
    for tournament_id in later:
        await tournaments.execute(tournament_id, lambda _: Create(SWISS, "org", 0), "org")
    if partitions > 1:
        assert len({partition_of(stream_of(t), partitions) for t in first + later}) > 1
    catalogue = await tournaments.catalogue()
    assert sorted(catalogue) == sorted(first + later)
    assert all(version == 1 for _, version in catalogue.values())


class CountingStore(InMemoryEventStore):
    """The in-memory store, counting the streams read."""

    def __init__(self, partitions: int) -> None:
        super().__init__(partitions=partitions)
        self.read: list[str] = []

    async def read_stream(self, stream_id: str, *args: Any, **kwargs: Any) -> Any:
        self.read.append(stream_id)
        return await super().read_stream(stream_id, *args, **kwargs)


@pytest.mark.parametrize("partitions", [1, 4], ids=["P1", "P4"])
async def test_an_ask_reads_only_the_tournaments_changed_since_the_last(partitions: int) -> None:
    """The driver asks every second: twenty tournaments nobody touches cost no read at all
    (each was read at every ask before), and one changed by another replica is read again
    and listed as it is now."""
    store = CountingStore(partitions)
    here, there = Tournaments(store), Tournaments(store)
    ids = [f"t{n:02}" for n in range(20)]
    for tournament_id in ids:
        await there.execute(tournament_id, lambda _: Create(SWISS, "org", 0), "org")
    assert sorted(await here.catalogue()) == ids
    store.read.clear()
    catalogue = await here.catalogue()
    assert sorted(catalogue) == ids
    assert store.read == []
    await there.execute("t07", lambda _: Join("ann", False, 1), "ann")
    store.read.clear()
    catalogue = await here.catalogue()
    assert store.read == [stream_of("t07")]
    state, version = catalogue["t07"]
    assert version == 2
    assert list(state.entrants) == ["ann"]
    assert all(v == 1 for t, (_, v) in catalogue.items() if t != "t07")
