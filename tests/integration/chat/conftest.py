"""Fixtures for the chat tests: the event store both ways (in memory and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from kits.stores import migrated_scratch_database, store_of

from parlor.eventstore import EventStore


@pytest.fixture(scope="session")
def chat_url(backends: object) -> Iterator[str]:
    with migrated_scratch_database(backends) as url:
        yield url


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
async def chat_store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    async with store_of(request.param, lambda: request.getfixturevalue("chat_url")) as store:
        yield store
