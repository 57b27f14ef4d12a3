"""The relay's lag and leadership and a consumer's pending count, as Prometheus shows them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from prometheus_client import REGISTRY

from parlor.eventstore import JetStreamBus, NewEvent, PostgresEventStore, Relay, Subjects
from parlor.eventstore.monitor import sample_relay

pytestmark = pytest.mark.integration


def sample(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, labels)
    return 0.0 if value is None else value


@pytest.fixture(params=[1, 4], ids=["P1", "P4"])
async def store(
    fresh_url: str, request: pytest.FixtureRequest
) -> AsyncIterator[PostgresEventStore]:
    """The store of one partition, and split into four: the relay's guarantees hold for both."""
    pg = PostgresEventStore(fresh_url, poll_interval=0.5, partitions=request.param)
    try:
        yield pg
    finally:
        await pg.close()


@pytest.fixture
async def bus(nats_url: str, unique: str, scratch_stream_name: str) -> AsyncIterator[JetStreamBus]:
    js = await JetStreamBus.connect(
        nats_url, Subjects(prefix=f"t{unique}.events", stream=scratch_stream_name)
    )
    await js.ensure_streams()
    try:
        yield js
    finally:
        await js.js.delete_stream(js.subjects.stream)
        await js.close()


async def test_relay_lag_counts_and_ages_what_is_committed_but_not_published(
    store: PostgresEventStore,
    bus: JetStreamBus,
    unique: str,
    eventually: Callable[..., Awaitable[None]],
) -> None:
    name = f"lag{unique}"
    relay = Relay(store, bus, name=name, poll_interval=0.2, takeover_interval=0.1)
    for version in range(3):
        await store.append("connect4x4-lag", [NewEvent("DiscDropped", b"x")], version)
    await asyncio.sleep(0.3)
    await sample_relay(relay)
    assert sample("parlor_relay_lag_events", relay=name) == 3
    assert sample("parlor_relay_lag_seconds", relay=name) >= 0.3
    assert sample("parlor_relay_leader", relay=name) == 0  # not started: nobody leads

    relay.start()
    try:
        await eventually(lambda: relay.published == 3)
        # the lag is read from the saved checkpoint, which follows the publishes by up to its
        # checkpoint_interval (longer on a loaded machine): sample until it has been saved
        saved_by = asyncio.get_running_loop().time() + 10
        while (await relay.checkpoints())[name] < 3:
            assert asyncio.get_running_loop().time() < saved_by, "the checkpoint was never saved"
            await asyncio.sleep(0.05)
        published = await sample_relay(relay)
        assert published == 3
        assert sample("parlor_relay_lag_events", relay=name) == 0
        assert sample("parlor_relay_lag_seconds", relay=name) == 0
        assert sample("parlor_relay_leader", relay=name) == 1
        assert sample("parlor_relay_published_total", relay=name) == 3
    finally:
        await relay.stop()

    # A durable consumer: what it has not fetched yet is pending; what it finished, handled.
    consumer = f"audit{unique}"
    sub = await bus.subscribe(consumer, bus.subjects.all())
    try:
        (first,) = await sub.fetch(1, max_wait=2.0)
        assert sample("parlor_consumer_pending", consumer=consumer) == 2
        await first.ack()
        assert sample("parlor_consumer_handled_total", consumer=consumer, outcome="ack") == 1
        rest = await sub.fetch(10, max_wait=2.0)
        assert len(rest) == 2
        assert sample("parlor_consumer_pending", consumer=consumer) == 0
        await rest[0].nak()
        assert sample("parlor_consumer_handled_total", consumer=consumer, outcome="nak") == 1
    finally:
        await sub.close()
