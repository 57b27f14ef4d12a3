"""Durable consumers that outlive whatever the bus loses: one mechanism for every consumer.

NATS can lose a consumer many ways: the server restarts without its store (stream and
consumers gone, the relay republishing into a new stream), the stream or the consumer is
deleted, a cluster moves the consumer's leader, the connection drops. What nats-py raises
says little about which: a fetch from a consumer that is gone raises
``ServiceUnavailableError`` (a 503, no responders), a missing stream ``NotFoundError``, a
leader away ``ServiceUnavailableError`` or a timeout, a dropped connection
``ConnectionClosedError`` or ``OSError``, and another version may differ. So nothing here
sorts exceptions: **any failed fetch drops the subscription and subscribes again** (with a
backoff) until a subscribe and a fetch succeed. ``Bus.subscribe`` binds to the consumer if
the server has it and makes it (and the stream, if that is gone too) if not: a consumer
made again starts at the stream's first message, and the inbox and the command ids make
the repeats change nothing. A fetch that only ever times out (nothing new, or a consumer
lost without a word) is the subscription's to check (``JetStreamSubscription`` looks the
consumer up now and then and raises ``ConsumerLost``).

A consumer is *up* (``parlor_consumer_up``) while its fetches succeed, empty ones included,
and down from the first failure to the next success; ``BusHealth`` gathers a component's
consumers (``track``) and its connection for the health name ``parlor.bus`` (see
``parlor.kit.server``), which says whether events flow, not whether the service takes
commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from parlor.eventstore.bus import Bus, Delivery, Subscription
from parlor.telemetry.metrics import CONSUMER_RECOVERIES, CONSUMER_UP

log = logging.getLogger(__name__)

MIN_BACKOFF = 0.1
"""Seconds before the first retry of a failed fetch or subscribe; doubled up to the max."""


class DurableConsumer:
    """A ``Subscription`` that subscribes (again) whenever it has to: at its first fetch,
    and after any fetch or subscribe that failed, whatever the failure.

    ``fetch`` never raises but a cancellation: a failure is logged, counted, slept off
    (``MIN_BACKOFF`` doubling to ``max_backoff``) and answered with no messages, so a
    consumer's loop is ``while True: for d in await consumer.fetch(): handle(d)``.
    """

    def __init__(
        self,
        bus: Bus,
        durable: str,
        filter_subject: str,
        *,
        ack_wait: float = 30.0,
        max_deliver: int = -1,
        max_backoff: float = 5.0,
    ) -> None:
        self.bus = bus
        self.durable = durable
        self.filter_subject = filter_subject
        self.ack_wait = ack_wait
        self.max_deliver = max_deliver
        self.max_backoff = max_backoff
        self.up = False
        """Whether the last fetch succeeded (False before the first)."""
        self.failure = "not subscribed yet"
        """Why it is not up (the last failure), empty while up."""
        self.recoveries = 0
        """Times it subscribed again after a failure."""
        self._sub: Subscription | None = None
        self._delay = MIN_BACKOFF
        self._first_failure: BaseException | None = None  # of the failures since last up
        CONSUMER_UP.labels(durable).set(0)

    async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[Delivery]:
        sub = self._sub
        if sub is None:
            try:
                sub = await self.bus.subscribe(
                    self.durable,
                    self.filter_subject,
                    ack_wait=self.ack_wait,
                    max_deliver=self.max_deliver,
                )
            except Exception as exc:  # any: see the module's docstring
                await self._failed("subscribe", exc)
                return []
            self._sub = sub
            if self._first_failure is not None:
                self.recoveries += 1
                CONSUMER_RECOVERIES.labels(self.durable, type(self._first_failure).__name__).inc()
        try:
            found = await sub.fetch(batch, max_wait=max_wait)
        except Exception as exc:
            self._sub = None
            with contextlib.suppress(Exception):
                await sub.close()
            await self._failed("fetch", exc)
            return []
        self._progressed()
        return found

    def _progressed(self) -> None:
        if not self.up:
            if self._first_failure is not None:
                log.warning(
                    "consumer %s fetches again (subscribed again %d times so far)",
                    self.durable,
                    self.recoveries,
                )
            self.up = True
            self.failure = ""
            CONSUMER_UP.labels(self.durable).set(1)
        self._first_failure = None
        self._delay = MIN_BACKOFF

    async def _failed(self, what: str, exc: Exception) -> None:
        self.failure = f"{what}: {type(exc).__name__}: {str(exc)[:200]}"
        if self._first_failure is None:
            self._first_failure = exc
            log.warning(
                "consumer %s cannot %s (%s); subscribing again until it can",
                self.durable,
                what,
                self.failure,
                extra={"consumer": self.durable},
            )
        else:
            log.debug("consumer %s still cannot %s (%s)", self.durable, what, self.failure)
        self.up = False
        CONSUMER_UP.labels(self.durable).set(0)
        await asyncio.sleep(self._delay)
        self._delay = min(self._delay * 2, self.max_backoff)

    async def close(self) -> None:
        """Stop fetching; the durable consumer stays on the server and resumes later."""
        sub, self._sub = self._sub, None
        if sub is not None:
            with contextlib.suppress(Exception):
                await sub.close()


class BusHealth:
    """A component's bus as the health name ``parlor.bus`` reports it: connected, and every
    consumer it tracks (``track``) fetching. ``problems()`` is the check: what is wrong,
    nothing when all is well."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.consumers: list[DurableConsumer] = []

    def track(self, consumer: DurableConsumer) -> DurableConsumer:
        """Report ``consumer``'s state too (it is returned, to be fetched from)."""
        self.consumers.append(consumer)
        return consumer

    def problems(self) -> list[str]:
        found = [] if self.bus.connected else ["NATS does not answer"]
        found.extend(f"consumer {c.durable}: {c.failure}" for c in self.consumers if not c.up)
        return found
