"""Create games from ``MatchFormed``: a durable JetStream consumer in every game service.

The game id is the match id and the command id is the match id too, so a
redelivered or replayed ``MatchFormed`` finds its game already created and
changes nothing; several replicas share one durable consumer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from parlor.core.errors import ParlorError, Unavailable
from parlor.eventstore import Bus
from parlor.eventstore.tracing import consuming
from parlor.matchmaking.v1 import events_pb2
from parlor.telemetry.metrics import set_aside

log = logging.getLogger("parlor.gamehost.matches")

CreateFromMatch = Callable[[events_pb2.MatchFormed], Awaitable[None]]


def match_subject(prefix: str = "parlor.events") -> str:
    return f"{prefix}.matchmaking.*.MatchFormed"


async def consume_matches(bus: Bus, game_type: str, create: CreateFromMatch) -> None:
    """Run forever: create a game for every match of ``game_type``; ack only when created."""
    consumer = f"{game_type}-matches"
    sub = await bus.subscribe(consumer, match_subject(bus.subjects.prefix))
    try:
        while True:
            for delivery in await sub.fetch(batch=50, max_wait=1.0):
                match = events_pb2.MatchFormed.FromString(delivery.data)
                if match.game_type == game_type:
                    try:
                        with consuming(delivery, consumer):
                            await create(match)
                    except Unavailable:
                        await delivery.nak(delay=1.0)  # the store is down: try again later
                        continue
                    except ParlorError as exc:
                        # A match this service refuses (bad seats) never succeeds: log, drop it.
                        log.error(
                            "cannot create game from match",
                            extra={"match_id": match.match_id, "reason": exc.reason},
                        )
                        set_aside(consumer, exc.reason)
                await delivery.ack()
    except asyncio.CancelledError:
        raise
    finally:
        await sub.close()
