"""Create games from ``MatchFormed``: a durable JetStream consumer in every game service.

A message on the bus is only a claim (anyone who can publish on NATS can send one):
the consumer reads the match from matchmaking's stream in the event store
(``matchmaking-<match_id>``, version 1) and creates the game from that record, never
from the message. A match the store does not hold is dropped and creates nothing.

The game id is the match id (a secure random id matchmaking draws, never a ticket's)
and the command id is the match id too, so a redelivered or replayed ``MatchFormed``
finds its game already created and changes nothing; several replicas share one
durable consumer.

It is the only way a match becomes a game (``once_created`` only waits for it, the
sweeper's recovery only notes games that exist): a ``MatchFormed`` that expired from the
stream before the service fetched it (every replica away longer than the stream's
``max_age``) creates no game; its players get ``GAME_NOT_FOUND`` and queue again, and the
match stays in the store.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TypedDict

from google.protobuf.message import DecodeError

from parlor.admission.privacy import Privacy
from parlor.core.errors import ParlorError, Unavailable
from parlor.eventstore import Bus, BusHealth, Delivery, DurableConsumer, EventStore
from parlor.eventstore.tracing import consuming
from parlor.gametypes.ids import system_command_id
from parlor.gametypes.seats import Seat, is_bot_account
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import MATCH_CATEGORY, match_consent, recorded_match
from parlor.telemetry.metrics import set_aside

log = logging.getLogger("parlor.gamehost.matches")

CreateFromMatch = Callable[[events_pb2.MatchFormed], Awaitable[object]]
"""What makes a match's game: the pipeline's ``create_from_match``."""


class MatchCreate(TypedDict):
    """How a game service's host creates a match's game: ``host.create(..., **from_match(m))``."""

    command_id: str
    actor: str
    correlation_id: str
    extra: Mapping[str, str]


def from_match(match: events_pb2.MatchFormed) -> MatchCreate:
    return MatchCreate(
        command_id=system_command_id("match", match.match_id),
        actor=MATCH_CATEGORY,
        correlation_id=match.match_id,
        extra=match_consent(match.match_id),
    )


def match_privacy(match: events_pb2.MatchFormed) -> Privacy:
    """A match's game is public; a private lobby's is private (``parlor.admission.privacy``).
    Its players are findable by id where their tickets chose to be."""
    return Privacy.chosen(private=bool(match.lobby), findable=match.findable_players)


def match_seats(match: events_pb2.MatchFormed) -> tuple[Seat, ...]:
    """The match's seats; a bot account's as matchmaking recorded it (``bot``, from the
    bot's own record), checked against the form of the ids it issues."""
    return tuple(
        Seat(s.player_id, s.display_name or s.player_id, s.bot and is_bot_account(s.player_id))
        for s in match.seats
    )


def match_subject(prefix: str = "parlor.events") -> str:
    return f"{prefix}.matchmaking.*.MatchFormed"


async def confirmed_match(store: EventStore, data: bytes) -> events_pb2.MatchFormed | None:
    """The match a message names, as matchmaking recorded it in the store; None if it did not.

    Raises ``Unavailable`` if the store cannot be read (the message is tried again later).
    """
    try:
        claimed = events_pb2.MatchFormed.FromString(data)
    except DecodeError:
        return None
    return await recorded_match(store, claimed.match_id)


def match_consumer(bus: Bus, game_type: str, health: BusHealth | None = None) -> DurableConsumer:
    """The durable consumer of ``game_type``'s matches (``<game_type>-matches``), shared by
    the service's replicas; made through ``health`` so that ``parlor.bus`` reports it."""
    made = DurableConsumer(bus, f"{game_type}-matches", match_subject(bus.subjects.prefix))
    return made if health is None else health.track(made)


async def consume_matches(
    bus: Bus | DurableConsumer, store: EventStore, game_type: str, create: CreateFromMatch
) -> None:
    """Run forever: create a game for every confirmed match of ``game_type``; ack when created.

    The consumer (``match_consumer``, made here from a bus) subscribes again whatever NATS
    loses; this task is the service's only consumer of matches and never ends on a bus's
    failure (were it to end, the supervisor would take the whole process down with it).
    """
    sub = bus if isinstance(bus, DurableConsumer) else match_consumer(bus, game_type)
    consumer = sub.durable
    try:
        while True:
            for delivery in await sub.fetch(batch=50, max_wait=1.0):
                await _create_from(delivery, consumer, store, game_type, create)
    finally:
        await sub.close()


async def _create_from(
    delivery: Delivery, consumer: str, store: EventStore, game_type: str, create: CreateFromMatch
) -> None:
    """Create the game of one delivered ``MatchFormed`` if the store bears it out; ack."""
    try:
        with consuming(delivery, consumer):
            match = await confirmed_match(store, delivery.data)
            if match is None:
                log.warning(
                    "MatchFormed not in the event store: ignored",
                    extra={"subject": delivery.subject},
                )
                set_aside(consumer, "MATCH_NOT_IN_STORE")
            elif match.game_type == game_type:
                await create(match)
    except Unavailable:
        # the store is down: try again later (a nak lost with NATS: at ack_wait)
        with contextlib.suppress(Exception):
            await delivery.nak(delay=1.0)
        return
    except ParlorError as exc:
        # A match this service refuses (bad seats) never succeeds: log, drop it.
        log.error(
            "cannot create game from match",
            extra={"subject": delivery.subject, "reason": exc.reason},
        )
        set_aside(consumer, exc.reason)
    with contextlib.suppress(Exception):
        # an ack lost with NATS means a redelivery, which creates nothing twice
        await delivery.ack()
