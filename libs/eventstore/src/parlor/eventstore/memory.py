"""In-memory store and bus with the same contract as PostgreSQL and JetStream, for unit tests."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from parlor.core.errors import Conflict, InvalidArgument, Unavailable
from parlor.eventstore.bus import (
    MSG_ID,
    Bus,
    ConsumerLost,
    ForeignDuplicate,
    StreamCheck,
    StreamMessage,
    Subjects,
    decode_event,
    event_headers,
    message_size,
    redelivery_id,
    same_message,
    subject_matches,
)
from parlor.eventstore.events import (
    ANY_VERSION,
    DEFAULT_MAX_EVENT_BYTES,
    AppendResult,
    EventLimit,
    EventSizeLimited,
    NewEvent,
    RecordedEvent,
    Snapshot,
    check_event_size,
    check_event_type,
    check_expected_version,
    check_stream_id,
    command_id_reused,
    stored_events,
)
from parlor.eventstore.partitions import check_partitions, partition_of
from parlor.eventstore.postgres import effective_command_id
from parlor.eventstore.relay import FORGED_DUPLICATES, REDELIVERY_ATTEMPTS
from parlor.eventstore.tasks import cancel_until_done
from parlor.eventstore.tracing import traced_append, traced_publish
from parlor.eventstore.upcasting import Upcasters
from parlor.telemetry.metrics import CONSUMER_HANDLED

log = logging.getLogger(__name__)


class InMemoryEventStore(EventSizeLimited):
    """``EventStore`` in a list; one asyncio loop, so appends are naturally serialised."""

    appends = 0
    """Appends asked of this store; ``conflicts``: those refused for the expected version."""
    conflicts = 0

    def __init__(
        self,
        upcasters: Upcasters | None = None,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        partitions: int = 1,
    ) -> None:
        self.partitions = check_partitions(partitions)
        self._homes: dict[str, int] = {}  # each stream's partition, fixed by its first event
        self._partition_of: list[int] = []  # each event's partition, by position - 1
        self.upcasters = upcasters or Upcasters()
        self._limit = EventLimit(max_event_bytes)
        self._all: list[RecordedEvent] = []
        self._streams: dict[str, list[RecordedEvent]] = {}
        self._commands: dict[tuple[str, str], AppendResult] = {}
        self._snapshots: dict[str, Snapshot] = {}
        self._appended = asyncio.Condition()

    @traced_append
    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        command_id: str | None = None,
        *,
        fingerprint: str | None = None,
    ) -> AppendResult:
        check_stream_id(stream_id)
        check_expected_version(expected_version)
        if not events:
            raise InvalidArgument("an append needs at least one event", reason="NO_EVENTS")
        for event in events:
            check_event_type(event.type)
            check_event_size(event, self.max_event_bytes)
        command_id = effective_command_id(events, command_id)
        if command_id is not None and (stream_id, command_id) in self._commands:
            known = self._commands[stream_id, command_id]
            if None not in (fingerprint, known.fingerprint) and fingerprint != known.fingerprint:
                raise command_id_reused(stream_id)
            return dataclasses.replace(known, duplicate=True, fingerprint=None)
        stream = self._streams.setdefault(stream_id, [])
        current = len(stream)
        if expected_version not in (ANY_VERSION, current):
            raise Conflict(
                f"stream {stream_id}: expected version {expected_version}, "
                f"but the stream is at version {current}",
                reason="WRONG_EXPECTED_VERSION",
                metadata={
                    "stream_id": stream_id,
                    "expected_version": str(expected_version),
                    "actual_version": str(current),
                },
            )
        stored = stored_events(
            stream_id, events, command_id, current + 1, len(self._all) + 1, datetime.now(UTC)
        )
        stream.extend(stored)
        self._all.extend(stored)
        home = self._homes.setdefault(stream_id, partition_of(stream_id, self.partitions))
        self._partition_of.extend([home] * len(stored))
        result = AppendResult(
            stream_id=stream_id,
            first_version=current + 1,
            last_version=current + len(events),
            first_position=len(self._all) - len(events) + 1,
            last_position=len(self._all),
            events=stored,
        )
        if command_id is not None:
            self._commands[stream_id, command_id] = dataclasses.replace(
                result, fingerprint=fingerprint, events=()
            )
        async with self._appended:
            self._appended.notify_all()
        return result

    def _up(self, event: RecordedEvent) -> RecordedEvent:
        return self.upcasters.upcast(event) if self.upcasters else event

    async def read_stream(
        self, stream_id: str, from_version: int = 0, to_version: int | None = None
    ) -> list[RecordedEvent]:
        return [
            self._up(e)
            for e in self._streams.get(stream_id, [])
            if e.version >= from_version and (to_version is None or e.version <= to_version)
        ]

    async def stream_version(self, stream_id: str) -> int:
        return len(self._streams.get(stream_id, []))

    async def command_result(self, stream_id: str, command_id: str) -> AppendResult | None:
        result = self._commands.get((stream_id, command_id))
        return None if result is None else dataclasses.replace(result, duplicate=True)

    async def read_all(self, from_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        start = max(from_position, 1) - 1
        return [self._up(e) for e in self._all[start : start + limit]]

    async def head_position(self) -> int:
        return len(self._all)

    async def streams_touched(
        self, category: str, after: int, through: int, partition: int | None = None
    ) -> list[str]:
        found: dict[str, None] = {}
        for index in range(max(after, 0), min(max(through, 0), len(self._all))):
            event = self._all[index]
            if partition is not None and self._partition_of[index] != partition:
                continue
            if event.stream_id.split("-", 1)[0] == category:
                found[event.stream_id] = None
        return list(found)

    async def read_partition(
        self, partition: int, from_position: int = 0, limit: int = 1000
    ) -> list[RecordedEvent]:
        start = max(from_position, 1) - 1
        found: list[RecordedEvent] = []
        for index in range(start, len(self._all)):
            if len(found) >= limit:
                break
            if self._partition_of[index] == partition:
                found.append(self._up(self._all[index]))
        return found

    async def head_positions(self) -> tuple[int, ...]:
        heads = [0] * self.partitions
        for index, partition in enumerate(self._partition_of):
            if partition < self.partitions:
                heads[partition] = index + 1
        return tuple(heads)

    async def subscribe_all(self, from_position: int = 0) -> AsyncIterator[RecordedEvent]:
        position = max(from_position, 1)
        while True:
            async with self._appended:
                await self._appended.wait_for(self._reached(position))
            for event in await self.read_all(position, limit=len(self._all)):
                yield event
                position = event.position + 1

    def _reached(self, position: int) -> Callable[[], bool]:
        return lambda: len(self._all) >= position

    async def save_snapshot(self, snapshot: Snapshot) -> None:
        check_stream_id(snapshot.stream_id)
        kept = self._snapshots.get(snapshot.stream_id)
        if kept is None or kept.version < snapshot.version:
            self._snapshots[snapshot.stream_id] = snapshot

    async def load_snapshot(self, stream_id: str) -> Snapshot | None:
        return self._snapshots.get(stream_id)

    def inject(self, event: RecordedEvent) -> None:
        """Put a recorded event in as it is (e.g. an old schema version), for tests."""
        placed = dataclasses.replace(event, position=len(self._all) + 1)
        self._streams.setdefault(event.stream_id, []).append(placed)
        self._all.append(placed)
        home = partition_of(event.stream_id, self.partitions)
        self._partition_of.append(self._homes.setdefault(event.stream_id, home))


@dataclass
class _Message:
    sequence: int
    subject: str
    data: bytes
    headers: dict[str, str]


def _stored(msg: _Message) -> StreamMessage:
    return StreamMessage(msg.sequence, msg.subject, msg.data, dict(msg.headers))


@dataclass
class _Consumer:
    filter_subject: str
    ack_wait: float
    max_deliver: int
    cursor: int = 0  # index into the log of the next message never delivered
    in_flight: dict[int, tuple[float, int]] = field(default_factory=dict)  # seq -> due, count
    redeliver: dict[int, int] = field(default_factory=dict)  # seq -> count, due now


class InMemoryDelivery:
    def __init__(self, bus: InMemoryBus, durable: str, msg: _Message, count: int) -> None:
        self._bus, self._durable, self._msg, self._count = bus, durable, msg, count

    @property
    def subject(self) -> str:
        return self._msg.subject

    @property
    def data(self) -> bytes:
        return self._msg.data

    @property
    def headers(self) -> Mapping[str, str]:
        return self._msg.headers

    @property
    def message_id(self) -> str:
        return self._msg.headers.get(MSG_ID) or f"memory:{self._msg.sequence}"

    @property
    def delivery_count(self) -> int:
        return self._count

    def event(self) -> RecordedEvent | None:
        return decode_event(self._msg.headers, self._msg.data)

    async def ack(self) -> None:
        # (to a consumer the bus lost since: goes nowhere, as on NATS)
        consumer = self._bus._consumers.get(self._durable)
        if consumer is not None:
            consumer.in_flight.pop(self._msg.sequence, None)
        CONSUMER_HANDLED.labels(self._durable, "ack").inc()

    async def nak(self, delay: float | None = None) -> None:
        CONSUMER_HANDLED.labels(self._durable, "nak").inc()
        consumer = self._bus._consumers.get(self._durable)
        if consumer is not None and self._msg.sequence in consumer.in_flight:
            due = self._bus._now() + (delay or 0.0)
            consumer.in_flight[self._msg.sequence] = (due, self._count)


class InMemorySubscription:
    def __init__(self, bus: InMemoryBus, durable: str) -> None:
        self._bus, self._durable = bus, durable

    async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[InMemoryDelivery]:
        deadline = self._bus._now() + max_wait
        while True:
            found = self._bus._take(self._durable, batch)
            if found or self._bus._now() >= deadline:
                return found
            await asyncio.sleep(min(0.01, max(deadline - self._bus._now(), 0)))

    async def close(self) -> None:
        return None


class InMemoryBus:
    """``Bus`` in a list: dedupe by message id, durable consumers, ack deadlines, redelivery.

    ``wipe()`` loses everything, as a NATS server restarted without its store does.
    """

    def __init__(self, subjects: Subjects | None = None, *, max_payload: int = 1024 * 1024) -> None:
        self.subjects = subjects or Subjects()
        self.max_payload = max_payload
        self.messages: list[_Message] = []
        self._seen_ids: dict[str, int] = {}  # message id -> the sequence that took it
        self._consumers: dict[str, _Consumer] = {}
        self._generation = 1
        self._exists = True
        self.closed = False

    async def close(self) -> None:
        """Publish nothing more (as a closed NATS connection does)."""
        self.closed = True

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def ensure_streams(self) -> None:
        self._exists = True

    @property
    def connections(self) -> int:
        return self._generation

    @property
    def connected(self) -> bool:
        return not self.closed

    def wipe(self) -> None:
        """The server came back without its store: no stream, no messages, no consumers."""
        self.messages.clear()
        self._seen_ids.clear()
        self._consumers.clear()
        self._generation += 1
        self._exists = False

    async def check_stream(self, subject: str) -> StreamCheck:
        made = not self._exists
        self._exists = True
        last = next(
            (m for m in reversed(self.messages) if subject_matches(subject, m.subject)), None
        )
        return StreamCheck(
            created=f"memory-{self._generation}",
            last=None if last is None else _stored(last),
            made=made,
        )

    async def message_before(
        self, subject: str, sequence: int, within: int
    ) -> StreamMessage | None:
        for seq in range(min(sequence - 1, len(self.messages)), max(sequence - within, 1) - 1, -1):
            msg = self.messages[seq - 1]
            if subject_matches(subject, msg.subject):
                return _stored(msg)
        return None

    @traced_publish
    async def publish_event(self, event: RecordedEvent, *, message_id: str | None = None) -> bool:
        subject = self.subjects.for_event(event)
        headers = event_headers(event)
        if message_id is not None:
            headers[MSG_ID] = message_id
        if await self.publish(subject, event.data, headers=headers):
            return True
        sequence = self._seen_ids[headers[MSG_ID]]
        stored = self.messages[sequence - 1] if sequence <= len(self.messages) else None
        if stored is None:
            raise ForeignDuplicate(headers[MSG_ID], sequence, "no message")
        if not same_message(
            subject, event.data, headers, stored.subject, stored.data, stored.headers
        ):
            raise ForeignDuplicate(headers[MSG_ID], sequence, "another message")
        return False

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
        if self.closed:
            raise Unavailable("the bus is closed", reason="BUS_UNAVAILABLE")
        if not self._exists:
            raise Unavailable(f"no stream for {subject}", reason="STREAM_MISSING")
        size = message_size(data, all_headers)
        if size > self.max_payload:
            raise InvalidArgument(
                f"a {size}-byte message exceeds the max payload ({self.max_payload})",
                reason="BUS_REFUSED",
            )
        msg_id = all_headers.get(MSG_ID)
        if msg_id is not None:
            if msg_id in self._seen_ids:
                return False
            self._seen_ids[msg_id] = len(self.messages) + 1
        self.messages.append(_Message(len(self.messages) + 1, subject, bytes(data), all_headers))
        return True

    async def subscribe(
        self,
        durable: str,
        filter_subject: str,
        *,
        ack_wait: float = 30.0,
        max_deliver: int = -1,
    ) -> InMemorySubscription:
        if self.closed:
            raise Unavailable("the bus is closed", reason="BUS_UNAVAILABLE")
        self._exists = True  # as JetStreamBus does, a consumer makes a missing stream
        self._consumers.setdefault(durable, _Consumer(filter_subject, ack_wait, max_deliver))
        return InMemorySubscription(self, durable)

    def events(self) -> list[RecordedEvent]:
        """Every event published so far, in order (for assertions)."""
        found = (decode_event(m.headers, m.data) for m in self.messages)
        return [e for e in found if e is not None]

    def _take(self, durable: str, batch: int) -> list[InMemoryDelivery]:
        if self.closed:
            raise Unavailable("the bus is closed", reason="BUS_UNAVAILABLE")
        consumer = self._consumers.get(durable)
        if consumer is None:  # wiped: as NATS without its store, the consumer is no more
            raise ConsumerLost(durable)
        now = self._now()
        taken: list[InMemoryDelivery] = []
        for seq, (due, count) in sorted(consumer.in_flight.items()):
            if len(taken) >= batch:
                return taken
            if due <= now and (consumer.max_deliver < 0 or count < consumer.max_deliver):
                consumer.in_flight[seq] = (now + consumer.ack_wait, count + 1)
                taken.append(InMemoryDelivery(self, durable, self.messages[seq - 1], count + 1))
        while len(taken) < batch and consumer.cursor < len(self.messages):
            msg = self.messages[consumer.cursor]
            consumer.cursor += 1
            if subject_matches(consumer.filter_subject, msg.subject):
                consumer.in_flight[msg.sequence] = (now + consumer.ack_wait, 1)
                taken.append(InMemoryDelivery(self, durable, msg, 1))
        return taken


class InMemoryRelay:
    """Publishes what an ``InMemoryEventStore`` records, as the PostgreSQL relay does.

    An event whose id another message took first (``ForeignDuplicate``) is published under
    ``redelivery_id``, tried ``REDELIVERY_ATTEMPTS`` times, logged at ERROR and counted in
    ``forgeries`` and ``parlor_relay_forged_duplicates_total{relay=name}``, as ``Relay``
    does; ``Unavailable`` (``BUS_FORGED``) once every id was taken. It has no lease, no
    checkpoint in a database and no stream check.
    """

    def __init__(
        self,
        store: InMemoryEventStore,
        bus: Bus,
        redact: Callable[[RecordedEvent], RecordedEvent | None] = lambda e: e,
        *,
        name: str = "memory",
    ) -> None:
        self.store, self.bus, self.redact = store, bus, redact
        self.name = name
        self.position = 0
        self.published = 0
        self.forgeries = 0  # publishes answered by a duplicate that was not the event
        self._task: asyncio.Task[None] | None = None

    async def publish_pending(self) -> int:
        """Publish everything recorded since the last call; how many events were read."""
        batch = await self.store.read_all(self.position + 1, limit=1_000_000)
        for event in batch:
            await self._publish(event)
        return len(batch)

    async def _follow(self) -> None:
        async for event in self.store.subscribe_all(self.position + 1):
            await self._publish(event)

    async def _publish(self, event: RecordedEvent) -> None:
        out = self.redact(event)
        if out is not None:
            message_id: str | None = None
            for attempt in range(1, REDELIVERY_ATTEMPTS + 2):
                try:
                    await self.bus.publish_event(out, message_id=message_id)
                    break
                except ForeignDuplicate as taken:
                    if attempt > REDELIVERY_ATTEMPTS:
                        raise Unavailable(
                            f"every id {out.message_id} may be published under was taken",
                            reason="BUS_FORGED",
                        ) from taken
                    message_id = redelivery_id(out, attempt)
                    self.forgeries += 1
                    FORGED_DUPLICATES.labels(self.name, taken.found).inc()
                    log.error(
                        "relay %s: %s (position %d) was dropped as a duplicate of %s on the "
                        "stream (sequence %d), not this event; publishing it as %s",
                        self.name,
                        taken.message_id,
                        event.position,
                        taken.found,
                        taken.sequence,
                        message_id,
                    )
            self.published += 1
        self.position = event.position

    def start(self) -> None:
        self._task = asyncio.create_task(self._follow(), name="parlor-memory-relay")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_until_done(self._task)
            self._task = None
