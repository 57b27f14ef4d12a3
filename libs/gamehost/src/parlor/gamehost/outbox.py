"""Each service publishes its own events: a relay per category, with the category's redaction.

The relay follows the store's global order but publishes only the events of
one category (one game type), after passing each through the service's
``public`` function, which strips hidden information (racks, hands, the bag)
from payloads. So nothing secret ever reaches NATS, whoever subscribes, and a
service's replicas elect one publisher among themselves (an advisory lock
named after the category, see ``parlor.eventstore.relay``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from parlor.eventstore import Bus, PostgresEventStore, RecordedEvent, Relay

Public = Callable[[str, bytes], bytes | None]
"""(event type, payload) -> the payload others may see, or None to publish nothing."""


def everything(event_type: str, data: bytes) -> bytes | None:
    return data


def category_relay(
    store: PostgresEventStore, bus: Bus, category: str, public: Public = everything
) -> Relay:
    prefix = f"{category}-"

    def redact(event: RecordedEvent) -> RecordedEvent | None:
        if not event.stream_id.startswith(prefix):
            return None
        data = public(event.type, event.data)
        if data is None:
            return None
        return event if data == event.data else dataclasses.replace(event, data=data)

    return Relay(store, bus, name=category, redact=redact, subject=bus.subjects.category(category))
