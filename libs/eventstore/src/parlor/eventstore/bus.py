"""The event bus port: subjects, headers and the contract of ``JetStreamBus`` and ``InMemoryBus``.

Subjects are ``<prefix>.<category>.<id>.<EventType>`` (prefix ``parlor.events``)
for the stream ``<category>-<id>``: consumers filter by game type
(``parlor.events.upwords.>``), by game (``parlor.events.upwords.<id>.>``) or by
event type across games (``parlor.events.*.*.GameFinished``). Subjects carry
only public identifiers, never payload data; everything else travels in
headers, and the message data is the event's payload bytes, so consumers in
any language need only a NATS client and the protobuf definitions. What a relay
publishes is what its redaction makes of an event, type included: the subject and
``Parlor-Event-Type`` name the type it is shown as (a Take Four joker swap goes as a
``TileMoved``), ``Nats-Msg-Id`` and the stream, version and position are its own.

**A duplicate is a claim too.** JetStream dedupes by ``Nats-Msg-Id`` across the whole
stream, so anyone who may publish on the subjects can take a future event's id first;
the real event would then be dropped as a duplicate. ``publish_event`` therefore checks
that the stream's message at the duplicate's sequence is this very event (subject,
payload, headers but the trace context) and raises ``ForeignDuplicate`` if it is not;
the relay then publishes the event under ``redelivery_id`` (``<stream>:<version>:<digest>``,
deterministic, so its own re-publish after a crash is deduped, and unguessable without
the event's contents). A consumer takes an event under either id (``is_id_of``) and
checks it against the store whatever the id.

**So is a position.** ``check_stream`` gives the last message on a subject as the stream
holds it (``StreamMessage``), not only its ``Parlor-Position``: that header is anyone's to
write, and the relay checks the message against the store before it believes it, walking
back (``message_before``) past messages that are not its own.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from parlor.core.errors import InvalidArgument, Unavailable
from parlor.eventstore.events import (
    Metadata,
    RecordedEvent,
    check_event_type,
    check_stream_id,
    split_stream_id,
)

log = logging.getLogger(__name__)

MSG_ID = "Nats-Msg-Id"
STREAM = "Parlor-Stream"
VERSION = "Parlor-Version"
POSITION = "Parlor-Position"
EVENT_TYPE = "Parlor-Event-Type"
SCHEMA_VERSION = "Parlor-Schema-Version"
RECORDED_AT = "Parlor-Recorded-At"
COMMAND_ID = "Parlor-Command-Id"
ACTOR = "Parlor-Actor"
CAUSATION_ID = "Parlor-Causation-Id"
CORRELATION_ID = "Parlor-Correlation-Id"
EXTRA = "Parlor-Extra"
TRACE_FIELDS = ("traceparent", "tracestate")  # W3C Trace Context, kept in Metadata.extra


@dataclass(frozen=True)
class Subjects:
    """Where events go on the bus; tests give each run its own prefix and stream name."""

    prefix: str = "parlor.events"
    stream: str = "PARLOR_EVENTS"

    def for_event(self, event: RecordedEvent) -> str:
        category, instance = split_stream_id(event.stream_id)
        short_type = event.type.rsplit(".", 1)[-1]
        return f"{self.prefix}.{category}.{instance}.{short_type}"

    def category(self, category: str) -> str:
        """Every event of one category (game type)."""
        return f"{self.prefix}.{category}.>"

    def stream_of(self, stream_id: str) -> str:
        """Every event of one stream (one game)."""
        category, instance = split_stream_id(stream_id)
        return f"{self.prefix}.{category}.{instance}.*"

    def all(self) -> str:
        return f"{self.prefix}.>"


@dataclass(frozen=True)
class StreamMessage:
    """One message as the stream holds it: its sequence, subject, payload and headers."""

    sequence: int
    subject: str
    data: bytes
    headers: Mapping[str, str]

    @property
    def claimed_position(self) -> int:
        """Its ``Parlor-Position`` header, 0 if it has none or not a number: a claim only."""
        text = self.headers.get(POSITION, "")
        return int(text) if text.isascii() and text.isdigit() and len(text) <= 19 else 0


@dataclass(frozen=True)
class StreamCheck:
    """What the bus's stream holds of one relay's subjects (see ``Bus.check_stream``)."""

    created: str
    """The stream's identity (its creation time): another value means it was lost and made again."""
    last: StreamMessage | None
    """The last message on the subjects asked about (anyone's: a claim to check), if any."""
    made: bool
    """The stream was missing and ``check_stream`` has just created it."""
    max_age: float = 0.0
    """Seconds the stream keeps a message (its ``max_age``; 0: for ever): a message older than
    that may be gone by the stream's own limit, which is no loss."""

    @property
    def last_position(self) -> int:
        """``Parlor-Position`` of the last message on the subjects; 0 if there is none.

        Whoever may publish on the subjects can write it: the relay checks the message it
        came from against the store (``Relay.verify``) before it believes it.
        """
        return self.last.claimed_position if self.last is not None else 0


def message_size(data: bytes, headers: Mapping[str, str]) -> int:
    """Bytes a message takes against the server's max payload: its headers block and data."""
    block = 12 + sum(len(k.encode()) + len(v.encode()) + 4 for k, v in headers.items())
    return len(data) + block


def event_headers(event: RecordedEvent) -> dict[str, str]:
    """The event's identity and metadata as NATS headers (the data is the payload)."""
    headers = {
        MSG_ID: event.message_id,
        STREAM: event.stream_id,
        VERSION: str(event.version),
        POSITION: str(event.position),
        EVENT_TYPE: event.type,
        SCHEMA_VERSION: str(event.schema_version),
        RECORDED_AT: event.recorded_at.isoformat(),
    }
    meta = event.metadata
    for name, value in (
        (COMMAND_ID, meta.command_id),
        (ACTOR, meta.actor),
        (CAUSATION_ID, meta.causation_id),
        (CORRELATION_ID, meta.correlation_id),
    ):
        if value is not None:
            headers[name] = value
    if meta.extra:
        # The W3C trace context travels in its standard headers, any other extra as JSON.
        rest = {k: v for k, v in meta.extra.items() if k not in TRACE_FIELDS}
        headers.update((k, v) for k, v in meta.extra.items() if k in TRACE_FIELDS)
        if rest:
            headers[EXTRA] = json.dumps(rest, sort_keys=True)
    return headers


def same_message(
    subject: str,
    data: bytes,
    headers: Mapping[str, str],
    stored_subject: str,
    stored_data: bytes,
    stored_headers: Mapping[str, str],
) -> bool:
    """Whether a stored message is the one published: the trace context aside (a publish
    span of its own each time), the same subject, payload and headers."""

    def kept(found: Mapping[str, str]) -> dict[str, str]:
        return {k: v for k, v in found.items() if k not in TRACE_FIELDS}

    return (
        stored_subject == subject and stored_data == data and kept(stored_headers) == kept(headers)
    )


class ForeignDuplicate(Exception):
    """The bus dropped an event as a duplicate of a message that is not that event.

    Another publisher took its ``Nats-Msg-Id`` (``found`` is ``"another message"``), or the
    message of that id is no longer on the stream (``"no message"``: purged within the
    dedupe window). Either way the event is not on the stream: publish it again under
    ``redelivery_id``.
    """

    def __init__(self, message_id: str, sequence: int, found: str) -> None:
        super().__init__(f"{message_id} was taken by {found} at stream sequence {sequence}")
        self.message_id = message_id
        self.sequence = sequence
        self.found = found


def redelivery_id(event: RecordedEvent, attempt: int = 1) -> str:
    """The id to publish ``event`` under once its own was taken (see ``ForeignDuplicate``).

    Deterministic (a relay re-publishing after a crash is deduped by it) and, being a digest
    of the event's headers and payload, unknown to a forger before the event is committed.
    """
    digest = hashlib.sha256(f"{attempt}\n".encode())
    for name, value in sorted(event_headers(event).items()):
        if name not in TRACE_FIELDS:
            digest.update(f"{name}: {value}\n".encode())
    digest.update(event.data)
    return f"{event.message_id}:{digest.hexdigest()[:24]}"


def is_id_of(message_id: str, event: RecordedEvent) -> bool:
    """Whether a message id is one ``event`` may be published under: its own, or a
    ``redelivery_id`` of it (no other event's id: a stream id holds no ``:``)."""
    own = event.message_id
    return message_id == own or message_id.startswith(f"{own}:")


MAX_NUMBER = 2**63 - 1
"""The largest version, position or schema version a store holds (a PostgreSQL bigint)."""


def decode_event(headers: Mapping[str, str], data: bytes) -> RecordedEvent | None:
    """The ``RecordedEvent`` a relay published, or None for a message that is not an event.

    Anyone who can publish can write these headers, so each is checked to what a store
    could hold (an id that makes a subject, a type name, numbers from 1 to a bigint, a
    time, an extra of strings): anything else is ``InvalidArgument`` (``MALFORMED_EVENT``),
    a message to set aside, never one to try again. What it decodes is still a claim, to
    be checked against the store.
    """
    if STREAM not in headers or VERSION not in headers:
        return None
    try:
        extra = json.loads(headers[EXTRA]) if EXTRA in headers else {}
        if not isinstance(extra, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in extra.items()
        ):
            raise ValueError(f"{EXTRA} is not an object of strings")
        return RecordedEvent(
            stream_id=check_stream_id(headers[STREAM]),
            version=_number(headers, VERSION),
            position=_number(headers, POSITION),
            type=check_event_type(headers[EVENT_TYPE]),
            data=data,
            schema_version=_number(headers, SCHEMA_VERSION),
            metadata=Metadata(
                command_id=headers.get(COMMAND_ID),
                actor=headers.get(ACTOR),
                causation_id=headers.get(CAUSATION_ID),
                correlation_id=headers.get(CORRELATION_ID),
                extra={**extra, **{k: headers[k] for k in TRACE_FIELDS if k in headers}},
            ),
            recorded_at=datetime.fromisoformat(headers[RECORDED_AT]),
        )
    except (KeyError, ValueError, TypeError, InvalidArgument) as exc:
        raise InvalidArgument(
            f"not an event message as a relay publishes it: {str(exc)[:200]}",
            reason="MALFORMED_EVENT",
        ) from None


def _number(headers: Mapping[str, str], name: str) -> int:
    text = headers[name]
    if not (text.isascii() and text.isdigit() and len(text) <= 19):
        raise ValueError(f"{name} is not a number from 1 to {MAX_NUMBER}")
    number = int(text)
    if not 1 <= number <= MAX_NUMBER:
        raise ValueError(f"{name} is not a number from 1 to {MAX_NUMBER}")
    return number


def subject_matches(pattern: str, subject: str) -> bool:
    """NATS wildcard matching: ``*`` is one token, a final ``>`` one or more."""
    want, have = pattern.split("."), subject.split(".")
    for i, token in enumerate(want):
        if token == ">":
            return len(have) > i
        if i >= len(have) or (token != "*" and token != have[i]):
            return False
    return len(want) == len(have)


class Delivery(Protocol):
    """One message handed to a consumer; it comes again unless acked in time."""

    @property
    def subject(self) -> str: ...

    @property
    def data(self) -> bytes: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def message_id(self) -> str:
        """``Nats-Msg-Id`` if the publisher set one, else the stream and sequence."""
        ...

    @property
    def delivery_count(self) -> int: ...

    def event(self) -> RecordedEvent | None:
        """The event carried, or None for a non-event message."""
        ...

    async def ack(self) -> None: ...

    async def nak(self, delay: float | None = None) -> None:
        """Ask for redelivery (after ``delay`` seconds)."""
        ...


class ConsumerLost(Unavailable):
    """The bus no longer has this durable consumer (NATS lost its store, the stream or the
    consumer was deleted): subscribing again makes it again (see ``DurableConsumer``)."""

    def __init__(self, durable: str, detail: str = "") -> None:
        super().__init__(
            f"the consumer {durable} is gone from the bus{f' ({detail})' if detail else ''}",
            reason="CONSUMER_LOST",
        )
        self.durable = durable


class Subscription(Protocol):
    """A durable pull consumer: fetch, handle, ack.

    A fetch raises when the bus fails it (``ConsumerLost``, ``Unavailable``, or whatever the
    client library raises): consumers fetch through ``DurableConsumer``, which subscribes
    again, never through a bare subscription.
    """

    async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[Delivery]:
        """Up to ``batch`` messages; empty after ``max_wait`` seconds with nothing to give."""
        ...

    async def close(self) -> None:
        """Stop fetching; unacked messages go to the next fetcher after ``ack_wait``."""
        ...


class Bus(Protocol):
    """Publishes events (and other messages) and hands them to durable consumers."""

    subjects: Subjects

    async def ensure_streams(self) -> None:
        """Create or update the JetStream stream(s) the subjects need; safe to repeat."""
        ...

    async def publish_event(self, event: RecordedEvent, *, message_id: str | None = None) -> bool:
        """Publish a committed event (under ``message_id``, if given, instead of its own);
        False if the bus already had it (deduplicated, and the stream's message of that id
        checked to be this event).

        Raises ``ForeignDuplicate`` when the message of that id is not this event,
        ``Unavailable`` when the bus is away or its storage is used up (reason
        ``STREAM_MISSING`` when it answers but has no stream for the subject) and
        ``InvalidArgument`` (reason ``BUS_REFUSED``) for a message it will never take, such
        as one over its max payload.
        """
        ...

    @property
    def connections(self) -> int:
        """How often the bus has (re)connected: a change means the server may have restarted."""
        ...

    @property
    def closed(self) -> bool:
        """Whether the bus was closed: it publishes nothing again (a relay on it stops)."""
        ...

    @property
    def connected(self) -> bool:
        """Whether the bus answers now (connected, its streams made): the health of
        ``parlor.bus``, never of a service's readiness."""
        ...

    async def check_stream(self, subject: str) -> StreamCheck:
        """Make the stream if missing; say which stream it is and its last message on
        ``subject``."""
        ...

    async def message_before(
        self, subject: str, sequence: int, within: int
    ) -> StreamMessage | None:
        """The last message on ``subject`` below stream sequence ``sequence``, looking at the
        ``within`` sequences under it only (``sequence - within`` to ``sequence - 1``); None
        if none of them is a message on ``subject``."""
        ...

    async def publish(
        self,
        subject: str,
        data: bytes,
        headers: Mapping[str, str] | None = None,
        message_id: str | None = None,
    ) -> bool:
        """Publish any message on a subject some stream covers; False if deduplicated."""
        ...

    async def subscribe(
        self,
        durable: str,
        filter_subject: str,
        *,
        ack_wait: float = 30.0,
        max_deliver: int = -1,
    ) -> Subscription:
        """A durable pull consumer with explicit acks; the same name resumes where it was."""
        ...
