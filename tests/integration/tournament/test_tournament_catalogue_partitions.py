"""The tournament catalogue follows each partition of the store's order from a position of
its own: every tournament created in any partition is listed, each once, at each ask."""

from __future__ import annotations

import pytest

from parlor.eventstore import InMemoryEventStore
from parlor.eventstore.partitions import partition_of
from parlor.services.tournament.tournaments import Tournaments, stream_of
from parlor.tournamentrules import Create
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
