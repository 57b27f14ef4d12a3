"""Event stores for tests that count what they are asked."""

from __future__ import annotations

from parlor.core.errors import Conflict
from parlor.eventstore import InMemoryEventStore


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
