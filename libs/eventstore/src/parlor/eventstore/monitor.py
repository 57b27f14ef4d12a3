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

    A lane's series are one whatever the store's partitions: it leads if it holds the lease
    of any of its partitions, its lag is the sum of each partition's (head less checkpoint)
    and its age the oldest unpublished event's of any of them.

    ``published_before`` is kept for callers that count: each lane remembers what it has
    already added to ``parlor_relay_published_total``.
    """
    checkpoints = await relay.partition_checkpoints()
    heads = await relay.store.head_positions()
    leads: dict[str, bool] = {}
    lag: dict[str, int] = {}
    behind: dict[str, float] = {}
    for name, lane in relay.lanes.items():
        leads[lane.base] = leads.get(lane.base, False) or lane.held
        if lane.published > lane.reported:
            RELAY_PUBLISHED.labels(lane.base).inc(lane.published - lane.reported)
            lane.reported = lane.published
        checkpoint, head = checkpoints[name], heads[lane.partition]
        lag[lane.base] = lag.get(lane.base, 0) + max(head - checkpoint, 0)
        age = 0.0
        if head > checkpoint:
            oldest = await relay.oldest_unpublished(lane, checkpoint)
            if oldest is not None:
                age = (datetime.now(UTC) - oldest.recorded_at).total_seconds()
        behind[lane.base] = max(behind.get(lane.base, 0.0), age)
    for base, leading in leads.items():
        RELAY_LEADER.labels(base).set(1 if leading else 0)
        RELAY_LAG_EVENTS.labels(base).set(lag[base])
        RELAY_LAG_SECONDS.labels(base).set(behind[base])
    return relay.published


async def watch_relay(relay: Relay, interval: float = 10.0) -> None:
    """Sample forever; a database outage only skips samples (the relay reports it anyway)."""
    for lane in relay.lanes.values():
        RELAY_LEADER.labels(lane.base).set(0)
    while True:
        try:
            await sample_relay(relay)
        except Exception as exc:
            log.debug("relay %s: no lag sample (%s)", relay.name, exc)
        await asyncio.sleep(interval)
