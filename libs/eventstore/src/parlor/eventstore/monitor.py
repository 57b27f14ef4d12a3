"""The relay's lag and leadership as metrics, sampled in the background on every replica.

Every replica reports the same lag (it is read from the store, not from the leader), so a
relay with no leader at all still shows its lag growing; ``parlor_relay_leader`` summed
over replicas says whether anyone leads. Run ``watch_relay`` as a component task beside
the relay itself.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from parlor.eventstore.relay import Relay
from parlor.telemetry.metrics import (
    RELAY_LAG_EVENTS,
    RELAY_LAG_SECONDS,
    RELAY_LEADER,
    RELAY_PUBLISHED,
)

log = logging.getLogger(__name__)


async def sample_relay(relay: Relay, published_before: int = 0) -> int:
    """Set the relay's gauges once; returns its publish count (to count only the new ones)."""
    RELAY_LEADER.labels(relay.name).set(1 if relay.is_leader else 0)
    if relay.published > published_before:
        RELAY_PUBLISHED.labels(relay.name).inc(relay.published - published_before)
    checkpoint = await relay.checkpoint()
    head = await relay.store.head_position()
    RELAY_LAG_EVENTS.labels(relay.name).set(max(head - checkpoint, 0))
    behind = 0.0
    if head > checkpoint:
        oldest = await relay.store.read_all(checkpoint + 1, 1)
        if oldest:
            behind = (datetime.now(UTC) - oldest[0].recorded_at).total_seconds()
    RELAY_LAG_SECONDS.labels(relay.name).set(max(behind, 0.0))
    return relay.published


async def watch_relay(relay: Relay, interval: float = 10.0) -> None:
    """Sample forever; a database outage only skips samples (the relay reports it anyway)."""
    published = 0
    RELAY_LEADER.labels(relay.name).set(0)
    while True:
        try:
            published = await sample_relay(relay, published)
        except Exception as exc:
            log.debug("relay %s: no lag sample (%s)", relay.name, exc)
        await asyncio.sleep(interval)
