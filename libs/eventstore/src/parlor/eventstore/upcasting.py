"""Upcasting: old schema versions of an event are upgraded when read, never rewritten.

Events are facts and stay as they were recorded; a service registers one step
per schema change, ``(type, from_version) -> fn(bytes) -> bytes`` giving
``from_version + 1``, and the store applies the chain on every read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from parlor.eventstore.events import RecordedEvent

Upcast = Callable[[bytes], bytes]


class Upcasters:
    """A registry of single-step payload upgrades, applied in chains on read."""

    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcast] = {}

    def register(self, event_type: str, from_version: int, upcast: Upcast) -> None:
        """Teach the store to turn ``event_type`` v``from_version`` into v``from_version+1``."""
        key = (event_type, from_version)
        if key in self._steps:
            raise ValueError(f"an upcaster for {event_type} v{from_version} is already registered")
        self._steps[key] = upcast

    def step(self, event_type: str, from_version: int) -> Callable[[Upcast], Upcast]:
        """Decorator form of ``register``."""

        def decorate(upcast: Upcast) -> Upcast:
            self.register(event_type, from_version, upcast)
            return upcast

        return decorate

    def __bool__(self) -> bool:
        return bool(self._steps)

    def upcast(self, event: RecordedEvent) -> RecordedEvent:
        """The event at the newest schema version the registry knows."""
        data, version = event.data, event.schema_version
        while (step := self._steps.get((event.type, version))) is not None:
            data, version = step(data), version + 1
        if version == event.schema_version:
            return event
        return dataclasses.replace(event, data=data, schema_version=version)
