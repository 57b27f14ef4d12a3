"""A ``DurableConsumer`` on real NATS goes on after each thing the bus can lose (issue 38).

Each test loses one thing under a consumer that is fetching: the consumer alone, the
stream (and its consumers with it), the server (restarted with its store, and without), the
consumer's leader in a cluster of 3. A message published after the loss must reach the
consumer, and the consumer must say it was made again. Which exception nats-py raised is
recorded (``parlor_consumer_recoveries_total``'s label) but never matters.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest

from parlor.eventstore import DurableConsumer, JetStreamBus, Subjects

pytestmark = [pytest.mark.integration]

SUBJECT = "parlor.events.game.g1.Moved"


async def until_got(consumer: DurableConsumer, want: str, seconds: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        for delivery in await consumer.fetch(10, max_wait=0.2):
            await delivery.ack()
            if delivery.message_id == want:
                return
        assert asyncio.get_running_loop().time() < deadline, f"{want} never came"


async def publish(bus: JetStreamBus, message_id: str, seconds: float = 20.0) -> None:
    """Publish once NATS takes it (the stream made again, as the relay would)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            await bus.ensure_streams()
            await bus.publish(SUBJECT, b"x", message_id=message_id)
            return
        except Exception:
            assert asyncio.get_running_loop().time() < deadline, f"{message_id} not published"
            await asyncio.sleep(0.1)


@pytest.fixture
async def bus(private_nats: Any) -> AsyncIterator[JetStreamBus]:
    made = await JetStreamBus.connect(
        private_nats.url, Subjects(), publish_timeout=0.5, consumer_check_interval=0.5
    )
    await made.ensure_streams()
    try:
        yield made
    finally:
        await made.close()


async def _delete_consumer(bus: JetStreamBus, private_nats: Any) -> None:
    await bus.js.delete_consumer(bus.subjects.stream, "lost")


async def _delete_stream(bus: JetStreamBus, private_nats: Any) -> None:
    await bus.js.delete_stream(bus.subjects.stream)


async def _restart(bus: JetStreamBus, private_nats: Any) -> None:
    private_nats.stop()
    await asyncio.sleep(0.3)
    private_nats.start()


async def _wipe(bus: JetStreamBus, private_nats: Any) -> None:
    private_nats.stop()
    shutil.rmtree(private_nats.store_dir)
    private_nats.start()


Loss = Callable[[JetStreamBus, Any], Coroutine[Any, Any, None]]


@pytest.mark.parametrize(
    "lose",
    [_delete_consumer, _delete_stream, _restart, _wipe],
    ids=["consumer deleted", "stream deleted", "server restarted", "server wiped"],
)
async def test_a_consumer_goes_on_after_the_bus_loses(
    bus: JetStreamBus, private_nats: Any, lose: Loss
) -> None:
    consumer = DurableConsumer(bus, "lost", bus.subjects.all(), ack_wait=2, max_backoff=0.5)
    await publish(bus, "before")
    await until_got(consumer, "before")
    assert consumer.up
    await lose(bus, private_nats)
    await publish(bus, "after")
    await until_got(consumer, "after")
    assert consumer.up
    if lose is not _restart:  # (a restart with its store keeps the consumer: it may only wait)
        assert consumer.recoveries >= 1, "it subscribed again, which made the consumer again"
    await consumer.close()


async def _connected(url: str) -> JetStreamBus:
    bus = await JetStreamBus.connect(url, Subjects(), replicas=3, publish_timeout=1.0)
    deadline = asyncio.get_running_loop().time() + 30
    while True:  # JetStream elects its meta leader a few seconds after the cluster starts
        try:
            await bus.js.account_info()
            await bus.ensure_streams()
            return bus
        except Exception:
            if asyncio.get_running_loop().time() > deadline:
                await bus.close()
                raise
            await asyncio.sleep(0.2)


@pytest.mark.slow
async def test_a_consumer_goes_on_when_its_leader_in_a_cluster_goes_away(
    nats_cluster: list[Any],
) -> None:
    every = ",".join(s.url for s in nats_cluster)
    bus = await _connected(every)
    consumer = DurableConsumer(bus, "led", bus.subjects.all(), ack_wait=2, max_backoff=0.5)
    try:
        await publish(bus, "before")
        await until_got(consumer, "before")
        info = await bus.js.consumer_info(bus.subjects.stream, "led")
        assert info.cluster is not None
        assert info.cluster.leader is not None
        (leader,) = [s for i, s in enumerate(nats_cluster) if info.cluster.leader == f"parlor-{i}"]
        leader.stop()  # the consumer's leader (and maybe the connection's server) goes
        await publish(bus, "after", seconds=30)
        await until_got(consumer, "after", seconds=30)
        assert consumer.up
    finally:
        await consumer.close()
        await bus.close()
