"""Scoring as a component: its tables, its JetStream consumer, its gRPC service."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

from parlor.accounts import GUEST_CLAIM_CATEGORY, GuestIdClaimed
from parlor.eventstore import (
    BusHealth,
    DurableConsumer,
    Inbox,
    JetStreamBus,
    NatsCredentials,
    PostgresEventStore,
    Subjects,
)
from parlor.gametypes.catalogue import catalogue
from parlor.kit.server import BUS_HEALTH, Component, GrpcService
from parlor.kit.settings import BackendSettings, load, setting
from parlor.runtime.backends import database
from parlor.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from parlor.services.scoring.migrate import migrate
from parlor.services.scoring.scorer import Scorer
from parlor.services.scoring.servicer import ScoringServicer

SERVICE_NAME = scoring_pb2.DESCRIPTOR.services_by_name["ScoringService"].full_name
CONSUMER = "scoring"
CLAIMS_CONSUMER = "scoring-claims"
"""Guest ids claimed by accounts (``accountguest-<guest id>``): their results re-keyed."""


def bus_subjects(backend: BackendSettings) -> Subjects:
    """The JetStream stream and subject prefix from the settings, as every service uses them.

    ``PARLOR_NATS_STREAM`` / ``PARLOR_NATS_SUBJECT_PREFIX`` (``BackendSettings.nats_stream``,
    ``nats_subject_prefix``); the defaults where a kit predates those settings.
    """
    default = Subjects()
    return Subjects(
        prefix=getattr(backend, "nats_subject_prefix", default.prefix),
        stream=getattr(backend, "nats_stream", default.stream),
    )


@dataclass(frozen=True)
class ScoringSettings:
    period_seconds: float = setting(
        "PARLOR_SCORING_PERIOD_SECONDS",
        "a Glicko-2 idle period: a player's RD grows once per period without games",
        7 * 24 * 3600.0,
    )
    game_types: tuple[str, ...] = setting(
        "PARLOR_SCORING_GAME_TYPES",
        "game types scoring answers for (comma-separated)",
        tuple(catalogue()),
    )


@contextlib.asynccontextmanager
async def scoring() -> AsyncIterator[Component]:
    backend = load(BackendSettings)
    settings = load(ScoringSettings)
    await migrate(backend.database_url)
    async with contextlib.AsyncExitStack() as stack:
        # The process's pools (its connection budget), shared with its other components.
        pools = await stack.enter_async_context(database(backend))
        store = PostgresEventStore(
            backend.database_url, pools=pools, partitions=backend.event_partitions
        )
        stack.push_async_callback(store.close)
        # NATS may not be there yet: the bus keeps trying, parlor.bus reports NOT_SERVING.
        bus = await JetStreamBus.open(
            backend.nats_url,
            bus_subjects(backend),
            credentials=NatsCredentials.of(backend),
            max_age=backend.nats_stream_max_age,
            replicas=backend.nats_stream_replicas,
        )
        stack.push_async_callback(bus.close)
        scorer = Scorer(store, timedelta(seconds=settings.period_seconds))
        servicer = ScoringServicer(store.engine, scorer, settings.game_types)
        inbox = Inbox(store.engine, CONSUMER)
        # Subscribes again whatever NATS loses; reported under parlor.bus, not the service's
        # readiness: the scores already kept are served with NATS away.
        bus_health = BusHealth(bus)
        finished = bus_health.track(
            DurableConsumer(bus, CONSUMER, f"{bus.subjects.prefix}.*.*.GameFinished")
        )

        claims_inbox = Inbox(store.engine, CLAIMS_CONSUMER)
        claimed = bus_health.track(
            DurableConsumer(
                bus,
                CLAIMS_CONSUMER,
                f"{bus.subjects.prefix}.{GUEST_CLAIM_CATEGORY}.*.{GuestIdClaimed.__name__}",
            )
        )

        async def consume() -> None:
            try:
                await inbox.run(finished, scorer.on_game_finished)
            finally:
                await finished.close()

        async def consume_claims() -> None:
            try:
                await claims_inbox.run(claimed, scorer.on_guest_claimed)
            finally:
                await claimed.close()

        yield Component(
            name=CONSUMER,
            services=[
                GrpcService(
                    SERVICE_NAME,
                    lambda server: scoring_pb2_grpc.add_ScoringServiceServicer_to_server(
                        servicer, server
                    ),
                )
            ],
            tasks=[consume, consume_claims],
            checks={BUS_HEALTH: bus_health.problems},
            extra={"scorer": scorer},
        )
