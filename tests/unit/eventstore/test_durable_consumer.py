"""A durable consumer outlives whatever the bus loses, whatever the client library raises.

Issue 38: after NATS came back without its store, a consumer's fetches raised
``ServiceUnavailableError`` (its consumer gone) and were retried as they were, for ever: games
were not scored, matches not created. ``DurableConsumer`` subscribes again after any failure
(which makes the consumer, and its stream, again), and says it is down meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import nats.errors
import nats.js.errors
import pytest

from parlor.core.errors import Unavailable
from parlor.eventstore import (
    BusHealth,
    ConsumerLost,
    Delivery,
    DurableConsumer,
    InMemoryBus,
    Subjects,
)
from parlor.eventstore.jetstream import JetStreamSubscription
from parlor.telemetry.metrics import CONSUMER_RECOVERIES, CONSUMER_UP

SUBJECT = "parlor.events.game.g1.Moved"

# Every kind of failure nats-py (2.x) raises from a fetch or a subscribe, and the port's own.
FAILURES: list[BaseException] = [
    nats.js.errors.ServiceUnavailableError(code=503, description="no responders"),
    nats.js.errors.NotFoundError(code=404, err_code=10014, description="consumer not found"),
    nats.js.errors.ServerError(code=500, description="leader changed"),
    nats.js.errors.APIError(code=408, description="request timeout"),
    nats.js.errors.FetchTimeoutError(),
    nats.errors.NoRespondersError(),
    nats.errors.TimeoutError(),
    TimeoutError(),
    nats.errors.ConnectionClosedError(),
    nats.errors.ConnectionReconnectingError(),
    nats.errors.StaleConnectionError(),
    nats.errors.SlowConsumerError(subject="x", reply="", sid=1, sub=None),  # type: ignore[arg-type]
    ConnectionResetError("reset by peer"),
    ConsumerLost("c"),
    Unavailable("NATS has not answered yet", reason="BUS_UNAVAILABLE"),
    RuntimeError("a bug in a client library"),
]


def _name(exc: BaseException) -> str:
    return type(exc).__name__


class Scripted:
    """A subscription whose fetches raise what it is given, once each, then deliver."""

    def __init__(self, failures: list[BaseException], messages: list[str]) -> None:
        self.failures = failures
        self.messages = messages
        self.closed = False

    async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[Delivery]:
        if self.failures:
            raise self.failures.pop(0)
        taken, self.messages[:] = list(self.messages), []
        return taken  # type: ignore[return-value]  # (strings stand in for deliveries)

    async def close(self) -> None:
        self.closed = True


class ScriptedBus(InMemoryBus):
    """Each subscribe fails with the next of ``subscribe_failures``, else gives a
    subscription failing its fetches with ``fetch_failures``."""

    def __init__(
        self, fetch_failures: list[BaseException], subscribe_failures: Sequence[BaseException] = ()
    ) -> None:
        super().__init__()
        self.fetch_failures = list(fetch_failures)
        self.subscribe_failures = list(subscribe_failures)
        self.subscriptions: list[Scripted] = []
        self.messages_for_next: list[str] = ["m1"]

    async def subscribe(self, durable: str, filter_subject: str, **options: Any) -> Any:
        if self.subscribe_failures:
            raise self.subscribe_failures.pop(0)
        failures, self.fetch_failures = self.fetch_failures, []
        made = Scripted(failures[:1], self.messages_for_next)
        self.fetch_failures = failures[1:]
        self.subscriptions.append(made)
        return made


async def _fetch_until(consumer: DurableConsumer, want: int, seconds: float = 5.0) -> list[Any]:
    got: list[Any] = []
    deadline = asyncio.get_running_loop().time() + seconds
    while len(got) < want:
        assert asyncio.get_running_loop().time() < deadline, f"only {got} in {seconds} s"
        got.extend(await consumer.fetch(10, max_wait=0.01))
    return got


@pytest.mark.parametrize("failure", FAILURES, ids=_name)
async def test_a_failed_fetch_of_any_kind_subscribes_again_and_goes_on(
    failure: BaseException,
) -> None:
    bus = ScriptedBus([failure])
    consumer = DurableConsumer(bus, f"fetch-{_name(failure)}", SUBJECT, max_backoff=0.05)
    before = CONSUMER_RECOVERIES.labels(consumer.durable, _name(failure))._value.get()
    assert await consumer.fetch(10, max_wait=0.01) == []  # subscribed; the fetch failed
    assert not consumer.up
    assert _name(failure) in consumer.failure
    assert CONSUMER_UP.labels(consumer.durable)._value.get() == 0
    assert bus.subscriptions[0].closed, "the failed subscription is let go"
    assert await _fetch_until(consumer, 1) == ["m1"]
    assert len(bus.subscriptions) == 2, "it subscribed again (which makes a lost consumer)"
    assert consumer.up
    assert consumer.failure == ""
    assert consumer.recoveries == 1
    assert CONSUMER_UP.labels(consumer.durable)._value.get() == 1
    after = CONSUMER_RECOVERIES.labels(consumer.durable, _name(failure))._value.get()
    assert after == before + 1


@pytest.mark.parametrize("failure", FAILURES, ids=_name)
async def test_a_failed_subscribe_of_any_kind_is_tried_again(failure: BaseException) -> None:
    bus = ScriptedBus([], subscribe_failures=[failure, failure])
    consumer = DurableConsumer(bus, f"subscribe-{_name(failure)}", SUBJECT, max_backoff=0.05)
    assert await consumer.fetch(10, max_wait=0.01) == []
    assert not consumer.up
    assert "subscribe" in consumer.failure
    assert await _fetch_until(consumer, 1) == ["m1"]
    assert consumer.up
    assert len(bus.subscriptions) == 1


async def test_failures_in_a_row_back_off_up_to_the_max_and_never_raise() -> None:
    bus = ScriptedBus(FAILURES * 2)
    consumer = DurableConsumer(bus, "many", SUBJECT, max_backoff=0.02)
    started = asyncio.get_running_loop().time()
    assert await _fetch_until(consumer, 1) == ["m1"]
    assert asyncio.get_running_loop().time() - started < 2.0
    assert consumer.recoveries == len(FAILURES) * 2


async def test_a_cancellation_is_not_a_failure() -> None:
    class Hanging(Scripted):
        async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[Delivery]:
            await asyncio.Event().wait()
            return []

    class HangingBus(ScriptedBus):
        async def subscribe(self, durable: str, filter_subject: str, **options: Any) -> Any:
            return Hanging([], [])

    consumer = DurableConsumer(HangingBus([]), "hang", SUBJECT)
    task = asyncio.create_task(consumer.fetch())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_an_in_memory_bus_that_loses_everything_is_consumed_again() -> None:
    """``InMemoryBus.wipe`` is NATS restarted without its store: the consumer is gone (a bare
    subscription says so, ``ConsumerLost``), and a ``DurableConsumer`` makes it again and
    gets what is published after."""
    bus = InMemoryBus(Subjects())
    bare = await bus.subscribe("bare", "parlor.events.>")
    consumer = DurableConsumer(bus, "durable", "parlor.events.>", max_backoff=0.05)
    await bus.publish(SUBJECT, b"1", message_id="one")
    assert [d.message_id for d in await _fetch_until(consumer, 1)] == ["one"]
    bus.wipe()
    with pytest.raises(ConsumerLost):
        await bare.fetch(1, max_wait=0.01)
    await bus.ensure_streams()  # (as the relay does when it finds the stream gone)
    await bus.publish(SUBJECT, b"2", message_id="two")
    assert [d.message_id for d in await _fetch_until(consumer, 1)] == ["two"]
    assert consumer.up
    assert consumer.recoveries == 1


async def test_bus_health_names_what_is_wrong() -> None:
    bus = InMemoryBus(Subjects())
    health = BusHealth(bus)
    consumer = health.track(DurableConsumer(bus, "watched", "parlor.events.>", max_backoff=0.01))
    assert health.problems() == ["consumer watched: not subscribed yet"]
    await consumer.fetch(1, max_wait=0.01)
    assert health.problems() == []
    bus.wipe()
    await consumer.fetch(1, max_wait=0.01)
    assert health.problems() == [
        "consumer watched: fetch: ConsumerLost: the consumer watched is gone from the bus"
    ]
    await consumer.fetch(1, max_wait=0.01)
    assert health.problems() == []
    await bus.close()
    await consumer.fetch(1, max_wait=0.01)
    problems = health.problems()
    assert problems[0] == "NATS does not answer"
    assert "watched" in problems[1]


class _Js:
    def __init__(self, info: BaseException | None) -> None:
        self.info = info
        self.asked = 0

    async def consumer_info(self, stream: str, durable: str) -> None:
        self.asked += 1
        if self.info is not None:
            raise self.info


class _Pull:
    def __init__(self, failure: BaseException) -> None:
        self.failure = failure

    async def fetch(self, batch: int, timeout: float) -> list[Any]:  # noqa: ASYNC109
        raise self.failure


class _Nc:
    is_connected = True


class _JsBus:
    def __init__(self, info: BaseException | None) -> None:
        self.nc = _Nc()
        self.js = _Js(info)
        self.subjects = Subjects()
        self.consumer_check_interval = 0.0


@pytest.mark.parametrize(
    "expired",
    [nats.errors.TimeoutError(), TimeoutError(), nats.js.errors.FetchTimeoutError()],
    ids=_name,
)
async def test_a_jetstream_fetch_that_times_out_looks_the_consumer_up(
    expired: BaseException,
) -> None:
    """A timeout alone cannot tell "nothing new" from "no consumer": the subscription asks,
    and a consumer the server does not have is ``ConsumerLost``."""
    there: Any = _JsBus(None)
    sub = JetStreamSubscription(_Pull(expired), there, "here")  # type: ignore[arg-type]
    assert await sub.fetch(1, max_wait=0.01) == []
    assert there.js.asked == 1
    gone: Any = _JsBus(nats.js.errors.NotFoundError(code=404, description="consumer not found"))
    sub = JetStreamSubscription(_Pull(expired), gone, "gone")  # type: ignore[arg-type]
    with pytest.raises(ConsumerLost, match="consumer not found"):
        await sub.fetch(1, max_wait=0.01)
    away: Any = _JsBus(nats.errors.ConnectionClosedError())
    sub = JetStreamSubscription(_Pull(expired), away, "away")  # type: ignore[arg-type]
    assert await sub.fetch(1, max_wait=0.01) == [], "the connection is up: the fetches will tell"
    away.nc.is_connected = False
    with pytest.raises(Unavailable, match="not connected"):
        await sub.fetch(1, max_wait=0.01)


@pytest.mark.parametrize(
    "failure", [f for f in FAILURES if not isinstance(f, TimeoutError)], ids=_name
)
async def test_a_jetstream_fetch_that_fails_raises_for_the_consumer_to_recover(
    failure: BaseException,
) -> None:
    sub = JetStreamSubscription(_Pull(failure), _JsBus(None), "x")  # type: ignore[arg-type]
    with pytest.raises(Exception) as raised:
        await sub.fetch(1, max_wait=0.01)
    assert raised.value is failure or isinstance(raised.value, ConsumerLost)
