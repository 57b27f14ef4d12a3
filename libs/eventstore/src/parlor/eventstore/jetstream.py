"""The event bus on NATS JetStream (nats-py): file-backed stream, dedupe window, pull consumers."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, StorageType, StreamConfig

from parlor.core.errors import Unavailable
from parlor.eventstore.bus import MSG_ID, Subjects, decode_event, event_headers
from parlor.eventstore.events import RecordedEvent
from parlor.eventstore.tracing import traced_publish
from parlor.telemetry.metrics import CONSUMER_HANDLED, CONSUMER_PENDING

DUPLICATE_WINDOW = 600.0
"""Seconds JetStream remembers message ids; a relay replaying within it publishes nothing twice."""


class JetStreamDelivery:
    """A JetStream message as a ``Delivery``."""

    def __init__(self, msg: Msg, consumer: str = "") -> None:
        self._msg = msg
        self._consumer = consumer

    @property
    def subject(self) -> str:
        return self._msg.subject

    @property
    def data(self) -> bytes:
        return self._msg.data

    @property
    def headers(self) -> Mapping[str, str]:
        return self._msg.headers or {}

    @property
    def message_id(self) -> str:
        msg_id = self.headers.get(MSG_ID)
        if msg_id:
            return msg_id
        meta = self._msg.metadata
        return f"{meta.stream}:{meta.sequence.stream}"

    @property
    def delivery_count(self) -> int:
        return self._msg.metadata.num_delivered

    def event(self) -> RecordedEvent | None:
        return decode_event(self.headers, self.data)

    async def ack(self) -> None:
        # Fire and forget: an ack lost on the way means one redelivery, which the
        # inbox recognises; waiting for the server's confirmation costs a round trip.
        await self._msg.ack()
        CONSUMER_HANDLED.labels(self._consumer, "ack").inc()

    async def nak(self, delay: float | None = None) -> None:
        await self._msg.nak(delay=delay)
        CONSUMER_HANDLED.labels(self._consumer, "nak").inc()


class JetStreamSubscription:
    """A durable pull consumer."""

    def __init__(self, sub: nats.js.JetStreamContext.PullSubscription, durable: str = "") -> None:
        self._sub = sub
        self._durable = durable

    async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[JetStreamDelivery]:
        try:
            msgs = await self._sub.fetch(batch, timeout=max_wait)
        except TimeoutError:  # nats-py raises its own and asyncio's: both mean "nothing yet"
            CONSUMER_PENDING.labels(self._durable).set(0)
            return []
        if msgs:  # what the server still holds after the last message it gave us
            CONSUMER_PENDING.labels(self._durable).set(msgs[-1].metadata.num_pending)
        return [JetStreamDelivery(m, self._durable) for m in msgs]

    async def close(self) -> None:
        """Stop fetching; the durable consumer stays on the server and resumes later."""
        with contextlib.suppress(Exception):
            await self._sub.unsubscribe()


class JetStreamBus:
    """``Bus`` on NATS JetStream; ``await JetStreamBus.connect(url)``, ``close()`` at exit."""

    def __init__(
        self,
        nc: Client,
        subjects: Subjects | None = None,
        *,
        publish_timeout: float = 2.0,
        duplicate_window: float = DUPLICATE_WINDOW,
    ) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.subjects = subjects or Subjects()
        self.publish_timeout = publish_timeout
        self.duplicate_window = duplicate_window

    @classmethod
    async def connect(
        cls, url: str, subjects: Subjects | None = None, **options: float
    ) -> JetStreamBus:
        """Connect (and keep reconnecting forever if NATS goes away later)."""
        try:
            nc = await nats.connect(
                url,
                max_reconnect_attempts=-1,
                reconnect_time_wait=0.25,
                connect_timeout=2,
                name="parlor-eventstore",
            )
        except Exception as exc:
            raise Unavailable(
                f"NATS at {url} is unavailable ({exc})", reason="BUS_UNAVAILABLE"
            ) from exc
        return cls(nc, subjects, **options)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.nc.close()

    async def ensure_streams(self) -> None:
        await self.ensure_stream(self.subjects.stream, [self.subjects.all()])

    async def ensure_stream(self, name: str, subjects: Sequence[str]) -> None:
        """Create the stream, or update its subjects and dedupe window; safe to repeat."""
        config = StreamConfig(
            name=name,
            subjects=list(subjects),
            storage=StorageType.FILE,
            duplicate_window=self.duplicate_window,
        )
        try:
            await self.js.add_stream(config)
        except nats.js.errors.BadRequestError:
            await self.js.update_stream(config)

    @traced_publish
    async def publish_event(self, event: RecordedEvent) -> bool:
        return await self.publish(
            self.subjects.for_event(event), event.data, headers=event_headers(event)
        )

    async def publish(
        self,
        subject: str,
        data: bytes,
        headers: Mapping[str, str] | None = None,
        message_id: str | None = None,
    ) -> bool:
        all_headers = dict(headers or {})
        if message_id is not None:
            all_headers[MSG_ID] = message_id
        try:
            ack = await self.js.publish(
                subject, data, timeout=self.publish_timeout, headers=all_headers or None
            )
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            raise Unavailable(
                f"NATS did not take the message ({type(exc).__name__})", reason="BUS_UNAVAILABLE"
            ) from exc
        return not ack.duplicate

    async def subscribe(
        self,
        durable: str,
        filter_subject: str,
        *,
        ack_wait: float = 30.0,
        max_deliver: int = -1,
    ) -> JetStreamSubscription:
        config = ConsumerConfig(
            durable_name=durable,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=ack_wait,
            max_deliver=max_deliver,
            filter_subject=filter_subject,
        )
        sub = await self.js.pull_subscribe(filter_subject, durable=durable, config=config)
        return JetStreamSubscription(sub, durable)
