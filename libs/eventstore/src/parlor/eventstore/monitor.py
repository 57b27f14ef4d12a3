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
    """Set each lane's gauges once; returns the relay's publish count.

    ``published_before`` is kept for callers that count: each lane remembers what it has
    already added to ``parlor_relay_published_total``.
    """
    checkpoints = await relay.checkpoints()
    head = await relay.store.head_position()
    for name, lane in relay.lanes.items():
        RELAY_LEADER.labels(name).set(1 if lane.held else 0)
        if lane.published > lane.reported:
            RELAY_PUBLISHED.labels(name).inc(lane.published - lane.reported)
            lane.reported = lane.published
        checkpoint = checkpoints[name]
        RELAY_LAG_EVENTS.labels(name).set(max(head - checkpoint, 0))
        behind = 0.0
        if head > checkpoint:
            oldest = await relay.oldest_unpublished(lane, checkpoint)
            if oldest is not None:
                behind = (datetime.now(UTC) - oldest.recorded_at).total_seconds()
        RELAY_LAG_SECONDS.labels(name).set(max(behind, 0.0))
    return relay.published


async def watch_relay(relay: Relay, interval: float = 10.0) -> None:
    """Sample forever; a database outage only skips samples (the relay reports it anyway)."""
    for name in relay.lanes:
        RELAY_LEADER.labels(name).set(0)
    while True:
        try:
            await sample_relay(relay)
        except Exception as exc:
            log.debug("relay %s: no lag sample (%s)", relay.name, exc)
        await asyncio.sleep(interval)
