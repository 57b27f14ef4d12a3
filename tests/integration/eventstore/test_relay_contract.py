"""One relay contract, two relays: ``InMemoryRelay`` on the in-memory pair, and ``Relay`` on
PostgreSQL and NATS JetStream. Whatever a forger publishes first, every event reaches the bus.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest
from prometheus_client import REGISTRY

from parlor.eventstore import (
    Bus,
    InMemoryBus,
    InMemoryEventStore,
    InMemoryRelay,
    JetStreamBus,
    NewEvent,
    PostgresEventStore,
    Relay,
    Subjects,
)
from parlor.eventstore.bus import is_id_of

Eventually = Callable[..., Awaitable[None]]


@dataclass
class Relayed:
    """A store, a bus and a relay between them, whichever kind."""

    store: InMemoryEventStore | PostgresEventStore
    bus: Bus
    relay: InMemoryRelay | Relay
    eventually: Eventually

    async def relay_until(self, published: int) -> None:
        """Run the relay until it has published ``published`` events (then stop it)."""
        if isinstance(self.relay, InMemoryRelay):
            await self.relay.publish_pending()
            assert self.relay.published == published
            return
        relay = self.relay
        relay.start()
        try:
            await self.eventually(lambda: relay.published == published)
        finally:
            await relay.stop()

    async def on_bus(self, count: int) -> list[tuple[str, bytes]]:
        """(message id, data) of the first ``count`` messages on the bus, in order."""
        sub = await self.bus.subscribe("audit", self.bus.subjects.all())
        found: list[tuple[str, bytes]] = []
        for _ in range(50):
            for d in await sub.fetch(count - len(found), max_wait=0.2):
                found.append((d.message_id, d.data))
                await d.ack()
            if len(found) >= count:
                break
        await sub.close()
        return found


@pytest.fixture(
    params=[
        "memory",
        pytest.param("postgres+jetstream", marks=pytest.mark.integration),
        pytest.param("postgres+jetstream P4", marks=pytest.mark.integration),
    ]
)
async def relayed(
    request: pytest.FixtureRequest, unique: str, scratch_stream_name: str, eventually: Eventually
) -> AsyncIterator[Relayed]:
    subjects = Subjects(prefix=f"t{unique}.events", stream=scratch_stream_name)
    name = f"r{unique}"
    if request.param == "memory":
        store = InMemoryEventStore()
        bus = InMemoryBus(subjects)
        yield Relayed(store, bus, InMemoryRelay(store, bus, name=name), eventually)
        return
    partitions = 4 if request.param.endswith("P4") else 1  # the order split in four too
    pg = PostgresEventStore(
        request.getfixturevalue("fresh_url"), poll_interval=0.5, partitions=partitions
    )
    js = await JetStreamBus.connect(request.getfixturevalue("nats_url"), subjects)
    await js.ensure_streams()
    try:
        relay = Relay(pg, js, name=name, poll_interval=0.5, takeover_interval=0.1)
        yield Relayed(pg, js, relay, eventually)
    finally:
        await js.js.delete_stream(subjects.stream)
        await js.close()
        await pg.close()


async def play(store: InMemoryEventStore | PostgresEventStore, moves: int) -> None:
    for m in range(moves):
        await store.append("connect4x4-g0", [NewEvent("DiscDropped", f"0:{m}".encode())], m)


class TestRelayContract:
    async def test_every_event_reaches_the_bus_once_in_order(self, relayed: Relayed) -> None:
        await play(relayed.store, 3)
        await relayed.relay_until(3)
        found = await relayed.on_bus(3)
        assert found == [(f"connect4x4-g0:{v}", f"0:{v - 1}".encode()) for v in (1, 2, 3)]
        assert relayed.relay.forgeries == 0

    async def test_an_event_whose_id_a_forger_took_first_is_published_under_a_redelivery_id(
        self, relayed: Relayed, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.ERROR)
        bus = relayed.bus
        # Anyone who may publish on the subjects takes the id the game's first move will have.
        subject = f"{bus.subjects.prefix}.connect4x4.g0.DiscDropped"
        assert await bus.publish(subject, b"forged", message_id="connect4x4-g0:1")
        name = relayed.relay.name
        forged = {"relay": name, "found": "another message"}
        before = REGISTRY.get_sample_value("parlor_relay_forged_duplicates_total", forged) or 0
        await play(relayed.store, 2)
        await relayed.relay_until(2)
        found = await relayed.on_bus(3)
        # The forgery stays, first; the relay may publish the next event before the one it
        # publishes again (its window of publishes left together).
        assert found[0] == ("connect4x4-g0:1", b"forged")
        ids = {data: message_id for message_id, data in found[1:]}
        assert set(ids) == {b"0:0", b"0:1"}
        real = (await relayed.store.read_stream("connect4x4-g0", 1, 1))[0]
        assert ids[b"0:0"] != real.message_id
        assert is_id_of(ids[b"0:0"], real)  # its redelivery id, which consumers take for it
        assert ids[b"0:1"] == "connect4x4-g0:2"
        after = REGISTRY.get_sample_value("parlor_relay_forged_duplicates_total", forged)
        assert after == before + 1
        assert any(
            "connect4x4-g0:1" in m and "duplicate of another message" in m for m in caplog.messages
        )
