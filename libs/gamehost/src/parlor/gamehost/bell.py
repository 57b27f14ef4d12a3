"""Ring a host's doorbell for every event the bus carries for its game type.

Other replicas append to the same games; their events reach this process on
NATS (the relay publishes every committed event), so watchers here wake at once.
A message from the bus is only a hint to look again (``Doorbell.hint``): its version is
never trusted beyond skipping the echo of a local append.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from parlor.eventstore import Subjects
from parlor.eventstore.bus import VERSION
from parlor.gamehost.doorbell import Doorbell


async def ring_from_bus(
    bus: Any, subjects: Subjects, category: str, doorbell: Doorbell
) -> Callable[[], Awaitable[None]]:
    """Subscribe (plain NATS, no ack needed: the store is the truth); returns the unsubscriber."""
    prefix_tokens = subjects.prefix.count(".") + 1

    async def on_message(msg: Any) -> None:
        tokens = msg.subject.split(".")
        if len(tokens) > prefix_tokens + 1:
            version = (msg.headers or {}).get(VERSION, "")
            known = isinstance(version, str) and version.isascii() and version.isdigit()
            # a hint, not a fact: anyone who can publish could have sent it
            doorbell.hint(tokens[prefix_tokens + 1], int(version[:20]) if known else None)

    nc = getattr(bus, "nc", None)
    if nc is None:  # the in-memory bus: local appends ring the bell themselves

        async def nothing() -> None:
            return None

        return nothing
    ready: asyncio.Event | None = getattr(bus, "ready", None)
    if ready is None or ready.is_set():
        sub = await nc.subscribe(subjects.category(category), cb=on_message)
        return sub.unsubscribe  # type: ignore[no-any-return]

    async def when_ready() -> Any:
        # NATS was not there at start-up: subscribe once the bus has connected.
        assert ready is not None
        await ready.wait()
        return await bus.nc.subscribe(subjects.category(category), cb=on_message)

    waiting = asyncio.create_task(when_ready())

    async def unsubscribe() -> None:
        if not waiting.done():
            waiting.cancel()
            with contextlib.suppress(BaseException):
                await waiting
            return
        if not waiting.cancelled() and waiting.exception() is None:
            await waiting.result().unsubscribe()

    return unsubscribe
