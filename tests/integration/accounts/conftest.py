"""Fixtures for the accounts tests: the event store both ways (in memory and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from parlor.eventstore import EventStore, InMemoryEventStore, PostgresEventStore
from parlor.eventstore.migrate import migrate_blocking


@pytest.fixture(scope="session")
def accounts_url(backends: object) -> Iterator[str]:
    """A database with the event store schema, of these tests' own."""
    from parlor.devinfra.backends import Backends, scratch_database
    from parlor.devinfra.scratch import scratch_name

    assert isinstance(backends, Backends)
    with scratch_database(backends.database_url, scratch_name("test")) as url:
        migrate_blocking(url)
        yield url


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        yield InMemoryEventStore()
        return
    pg = PostgresEventStore(request.getfixturevalue("accounts_url"), poll_interval=0.2)
    try:
        yield pg
    finally:
        await pg.close()
