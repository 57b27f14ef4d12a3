"""Parlor's event store (PostgreSQL) and event bus (NATS JetStream); see README.md."""

from parlor.eventstore.bus import (
    Bus,
    ConsumerLost,
    Delivery,
    StreamCheck,
    StreamMessage,
    Subjects,
    Subscription,
    decode_event,
    event_headers,
)
from parlor.eventstore.consumers import BusHealth, DurableConsumer
from parlor.eventstore.events import (
    ANY_VERSION,
    NO_STREAM,
    AppendResult,
    Metadata,
    NewEvent,
    RecordedEvent,
    Snapshot,
)
from parlor.eventstore.inbox import Inbox, SetAside
from parlor.eventstore.jetstream import JetStreamBus, NatsCredentials
from parlor.eventstore.memory import InMemoryBus, InMemoryEventStore, InMemoryRelay
from parlor.eventstore.migrate import migrate
from parlor.eventstore.postgres import PostgresEventStore
from parlor.eventstore.relay import Relay
from parlor.eventstore.store import EventStore, PartitionedOrder
from parlor.eventstore.upcasting import Upcasters

__all__ = [
    "ANY_VERSION",
    "NO_STREAM",
    "AppendResult",
    "Bus",
    "BusHealth",
    "ConsumerLost",
    "Delivery",
    "DurableConsumer",
    "EventStore",
    "InMemoryBus",
    "InMemoryEventStore",
    "InMemoryRelay",
    "Inbox",
    "JetStreamBus",
    "Metadata",
    "NatsCredentials",
    "NewEvent",
    "PartitionedOrder",
    "PostgresEventStore",
    "RecordedEvent",
    "Relay",
    "SetAside",
    "Snapshot",
    "StreamCheck",
    "StreamMessage",
    "Subjects",
    "Subscription",
    "Upcasters",
    "decode_event",
    "event_headers",
    "migrate",
]
