"""Traces and metrics where events are written, published and consumed.

- ``traced_append`` (on every store's ``append``): a span per append, and the span's W3C
  trace context stamped into each new event's ``Metadata.extra`` (so it is stored with the
  event); every append counts in ``parlor_game_appends_total`` and a refused expected
  version in ``parlor_append_conflicts_total`` (by category), and in the store's own
  ``appends`` and ``conflicts`` totals (what the load test and the benchmarks read).
- ``traced_publish`` (on every bus's ``publish_event``): the publish span continues the
  trace stored with the event, and the message carries the publish span's context in its
  ``traceparent``/``tracestate`` headers.
- ``consuming(delivery, consumer)``: a consumer's handling of one message continues the
  trace in its headers, with the consumer and message id on every log line.

With tracing off (``parlor.telemetry`` has no provider) nothing is stamped or sent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar, cast

from parlor import telemetry
from parlor.core.errors import Conflict
from parlor.eventstore.bus import Delivery
from parlor.eventstore.events import AppendResult, NewEvent, RecordedEvent, split_stream_id
from parlor.telemetry import SpanKind, logcontext
from parlor.telemetry.metrics import APPENDS, CONFLICTS, labelled

TRACER = "parlor.eventstore"


def stamped(events: Sequence[NewEvent]) -> Sequence[NewEvent]:
    """The events with the current trace context in their metadata (if none has one yet)."""
    fields = telemetry.carrier()
    if not fields:
        return events
    return [
        e
        if telemetry.TRACEPARENT in e.metadata.extra
        else dataclasses.replace(
            e, metadata=dataclasses.replace(e.metadata, extra={**e.metadata.extra, **fields})
        )
        for e in events
    ]


Append = TypeVar("Append", bound=Callable[..., Awaitable[AppendResult]])


class Counted(Protocol):
    """A store's own totals of the appends it was asked for, and of those refused."""

    appends: int
    conflicts: int


def traced_append(append: Append) -> Append:
    """Decorate a store's ``append(self, stream_id, events, expected_version, ...)``."""

    @functools.wraps(append)
    async def wrapper(
        store: object,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        *args: Any,
        **kwargs: Any,
    ) -> AppendResult:
        category = split_stream_id(stream_id)[0]
        labelled(APPENDS, category).inc()
        counted = cast(Counted, store)
        counted.appends += 1
        try:
            if not telemetry.enabled():
                return await append(store, stream_id, events, expected_version, *args, **kwargs)
            with telemetry.span(
                f"append {split_stream_id(stream_id)[0]}",
                tracer=TRACER,
                kind=SpanKind.CLIENT,
                attributes={
                    "db.system": "postgresql",
                    "parlor.stream_id": stream_id,
                    "parlor.expected_version": expected_version,
                    "parlor.events": len(events),
                },
            ) as span:
                result = await append(
                    store, stream_id, stamped(events), expected_version, *args, **kwargs
                )
                if span is not None:
                    span.set_attribute("parlor.last_position", result.last_position)
                    span.set_attribute("parlor.duplicate", result.duplicate)
                return result
        except Conflict:
            labelled(CONFLICTS, category).inc()
            counted.conflicts += 1
            raise

    return cast(Append, wrapper)


Publish = TypeVar("Publish", bound=Callable[..., Awaitable[bool]])


def traced_publish(publish: Publish) -> Publish:
    """Decorate a bus's ``publish_event(self, event, *, message_id=None)``."""

    @functools.wraps(publish)
    async def wrapper(bus: object, event: RecordedEvent, **options: Any) -> bool:
        extra = event.metadata.extra
        if not telemetry.enabled() or telemetry.TRACEPARENT not in extra:
            return await publish(bus, event, **options)  # nothing to continue: no trace stored
        with telemetry.span(
            f"publish {event.type.rsplit('.', 1)[-1]}",
            tracer=TRACER,
            kind=SpanKind.PRODUCER,
            parent=extra,
            attributes={
                "messaging.system": "nats",
                "messaging.message.id": event.message_id,
                "parlor.stream_id": event.stream_id,
                "parlor.position": event.position,
            },
        ):
            context = {**extra, **telemetry.carrier()}
            sent = dataclasses.replace(
                event, metadata=dataclasses.replace(event.metadata, extra=context)
            )
            return await publish(bus, sent, **options)

    return cast(Publish, wrapper)


@contextlib.contextmanager
def consuming(delivery: Delivery, consumer: str) -> Iterator[None]:
    """Handle one message inside a consumer span continuing its trace; logs name both."""
    headers = delivery.headers
    with logcontext.bound(consumer=consumer, message_id=delivery.message_id):
        if not telemetry.enabled():
            yield
            return
        event_type = headers.get("Parlor-Event-Type", delivery.subject).rsplit(".", 1)[-1]
        with telemetry.span(
            f"{consumer} handle {event_type}",
            tracer=TRACER,
            kind=SpanKind.CONSUMER,
            parent=headers if telemetry.TRACEPARENT in headers else None,
            attributes={
                "messaging.system": "nats",
                "messaging.consumer.group.name": consumer,
                "messaging.message.id": delivery.message_id,
                "messaging.destination.name": delivery.subject,
            },
        ):
            yield


Handle = TypeVar("Handle", bound=Callable[..., Awaitable[Any]])


def consumed(handle: Handle) -> Handle:
    """Decorate a consumer's ``handle(self, delivery, ...)``; ``self.consumer`` names it."""

    @functools.wraps(handle)
    async def wrapper(owner: Any, delivery: Delivery, *args: Any, **kwargs: Any) -> Any:
        with consuming(delivery, owner.consumer):
            return await handle(owner, delivery, *args, **kwargs)

    return cast(Handle, wrapper)
