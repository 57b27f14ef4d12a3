"""Event stores for tests that count what they are asked."""

from __future__ import annotations

from parlor.eventstore import InMemoryEventStore


class CountingStore(InMemoryEventStore):
    """The memory store, counting its stream reads (``reads``): what a path reads back."""

    reads = 0

    async def read_stream(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        self.reads += 1
        return await super().read_stream(*args, **kwargs)  # type: ignore[arg-type]
