"""Event stores for tests that count what they are asked."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator

from parlor.core.errors import Conflict
from parlor.eventstore import EventStore, InMemoryEventStore, PostgresEventStore


class CountingStore(InMemoryEventStore):
    """The memory store, counting its stream reads (``reads``): what a path reads back; and
    the appends it refused as made on a stale version (``conflicts``)."""

    reads = 0
    conflicts = 0

    async def append(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        try:
            return await super().append(*args, **kwargs)  # type: ignore[arg-type]
        except Conflict:
            self.conflicts += 1
            raise

    async def read_stream(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        self.reads += 1
        return await super().read_stream(*args, **kwargs)  # type: ignore[arg-type]


@contextlib.contextmanager
def migrated_scratch_database(backends: object) -> Iterator[str]:
    """A database of its own with the event store schema, on the test session's server."""
    from parlor.devinfra.backends import Backends, scratch_database
    from parlor.devinfra.scratch import scratch_name
    from parlor.eventstore.migrate import migrate_blocking

    assert isinstance(backends, Backends)
    with scratch_database(backends.database_url, scratch_name("test")) as url:
        migrate_blocking(url)
        yield url


@contextlib.asynccontextmanager
async def store_of(kind: str, url: Callable[[], str]) -> AsyncIterator[EventStore]:
    """The event store of ``kind``: "memory", or "postgres" on the database ``url()`` gives."""
    if kind == "memory":
        yield InMemoryEventStore()
        return
    pg = PostgresEventStore(url(), poll_interval=0.2)
    try:
        yield pg
    finally:
        await pg.close()
