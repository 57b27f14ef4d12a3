"""Fixtures for the tournament tests: the event store both ways (in memory and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from kits.stores import migrated_scratch_database, store_of

from parlor.eventstore import EventStore


@pytest.fixture(scope="session")
def tournament_url(backends: object) -> Iterator[str]:
    with migrated_scratch_database(backends) as url:
        yield url


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
async def tournament_store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    async with store_of(request.param, lambda: request.getfixturevalue("tournament_url")) as store:
        yield store
