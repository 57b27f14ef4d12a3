"""Each game's events reach NATS through its category's lane, with the category's redaction.

A lane (``parlor.eventstore.relay.Lane``) publishes the events of one category (one
game type), after passing each through the service's ``public`` function, which strips
hidden information (racks, hands, the bag) from payloads. So nothing secret ever reaches
NATS, whoever subscribes. Each lane has a lease and a checkpoint named after its
category: the replicas hosting a category elect one publisher for it among themselves,
whether a replica hosts that game alone (``--only connect4x4``, a pod) or beside others
(the platform), where one relay reads the global order once for all of them
(``parlor.gamehost.backends``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from parlor.eventstore import Bus, PostgresEventStore, RecordedEvent, Relay
from parlor.eventstore.relay import Lane

Public = Callable[[str, bytes], bytes | None]
"""(event type, payload) -> the payload others may see, or None to publish nothing."""


def everything(event_type: str, data: bytes) -> bytes | None:
    return data


def category_lane(category: str, public: Public = everything) -> Lane:
    """The lane of one category: only its events (read so in SQL), through ``public``."""

    def redact(event: RecordedEvent) -> RecordedEvent | None:
        data = public(event.type, event.data)
        if data is None:
            return None
        return event if data == event.data else dataclasses.replace(event, data=data)

    return Lane(category, redact, category=category)


def category_relay(
    store: PostgresEventStore, bus: Bus, category: str, public: Public = everything
) -> Relay:
    """A relay of one category's lane (a service that relays its own events alone)."""
    return Relay(store, bus, lanes=[category_lane(category, public)])
