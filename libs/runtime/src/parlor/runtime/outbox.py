"""Each game's events reach NATS through its category's lane, with the category's redaction.

A lane (``parlor.eventstore.relay.Lane``) publishes the events of one category (one
game type), after passing each through the service's ``public`` function, which gives what
a spectator may see of it during play: its payload with the hidden information (racks,
hands, the bag) stripped, and the type it is shown as, where its own would tell something
hidden (a Take Four joker swap is shown as a ``TileMoved``: its own type would tell that a
joker is now in that hand). The subject (``<prefix>.<category>.<id>.<type>``) and the
``Parlor-Event-Type`` header name the type shown; ``Nats-Msg-Id`` (``<stream>:<version>``),
the stream, version and position stay the event's own. A private game's spectator invite,
kept in its creating events' metadata, is left out of the headers
(``parlor.admission.privacy.redacted``). So nothing secret ever reaches NATS, whoever
subscribes. Each lane has a lease and a checkpoint named after its category: the
replicas hosting a category elect one publisher for it among themselves, whether a replica
hosts that game alone (``--only connect4x4``, a pod) or beside others (the platform), where
one relay reads the global order once for all of them (``parlor.gamehost.wiring.backends``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from parlor.admission.privacy import redacted
from parlor.eventstore import Bus, PostgresEventStore, RecordedEvent, Relay
from parlor.eventstore.relay import Lane

Public = Callable[[str, bytes], tuple[str, bytes] | None]
"""(event type, payload) -> the (type, payload) anyone may see, or None to publish nothing."""


def everything(event_type: str, data: bytes) -> tuple[str, bytes] | None:
    return event_type, data


def category_lane(category: str, public: Public = everything) -> Lane:
    """The lane of one category: only its events (read so in SQL), through ``public``."""

    def redact(event: RecordedEvent) -> RecordedEvent | None:
        shown = public(event.type, event.data)
        if shown is None:
            return None
        event_type, data = shown
        extra = redacted(event.metadata.extra)
        if extra is not event.metadata.extra:
            metadata = dataclasses.replace(event.metadata, extra=extra)
            event = dataclasses.replace(event, metadata=metadata)
        if event_type == event.type and data == event.data:
            return event
        return dataclasses.replace(event, type=event_type, data=data)

    return Lane(category, redact, category=category)


def category_relay(
    store: PostgresEventStore, bus: Bus, category: str, public: Public = everything
) -> Relay:
    """A relay of one category's lane (a service that relays its own events alone)."""
    return Relay(store, bus, lanes=[category_lane(category, public)], spread=True)
