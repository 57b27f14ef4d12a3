"""The relay as a component: run it with several replicas, one leads (a PostgreSQL advisory lock).

It has no gRPC API of its own; it reports its health through the server's
standard health service and publishes every committed event to JetStream with
``Nats-Msg-Id = <stream>:<version>`` so a replay after a crash deduplicates.
Events whose metadata marks them private (hidden tiles) are not published.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from parlor.eventstore import JetStreamBus, PostgresEventStore, RecordedEvent, Relay
from parlor.kit.server import Component
from parlor.kit.settings import BackendSettings, load

PRIVATE = "private"


def public_only(event: RecordedEvent) -> RecordedEvent | None:
    """Events carrying hidden information stay in the store, off the bus."""
    return None if event.metadata.extra.get(PRIVATE) else event


@contextlib.asynccontextmanager
async def relay() -> AsyncIterator[Component]:
    settings = load(BackendSettings)
    store = PostgresEventStore(settings.database_url, pool_size=2)
    bus = await JetStreamBus.connect(settings.nats_url)
    await bus.ensure_streams()
    outbox = Relay(store, bus, redact=public_only)

    async def run() -> None:
        await outbox.run()

    try:
        yield Component(name="relay", tasks=[run])
    finally:
        with contextlib.suppress(asyncio.CancelledError):
            await outbox.stop()
        await bus.close()
        await store.close()
