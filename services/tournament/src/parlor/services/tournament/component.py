"""Tournaments as a component: their streams, their relay lane, their driver and results."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.eventstore import BusHealth, DurableConsumer, PostgresEventStore, Subjects
from parlor.gametypes.catalogue import catalogue
from parlor.kit.server import BUS_HEALTH, Component, GrpcService
from parlor.kit.settings import BackendSettings, load
from parlor.runtime.backends import database, process_outbox
from parlor.runtime.bells import GameBells, ring_from_bus
from parlor.services.tournament.driver import CONSUMER, Driver
from parlor.services.tournament.servicer import TournamentServicer
from parlor.services.tournament.settings import TournamentSettings
from parlor.services.tournament.tournaments import CATEGORY, Tournaments, scaled_clock
from parlor.tournaments.v1 import tournaments_pb2, tournaments_pb2_grpc

SERVICE_NAME = tournaments_pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name


def announced(event_type: str, data: bytes) -> tuple[str, bytes]:
    """What the bus carries of a tournament's event: its type alone (another replica's
    watchers read the tournament from the store when they hear of it)."""
    return event_type, b""


@contextlib.asynccontextmanager
async def tournament() -> AsyncIterator[Component]:
    backend = load(BackendSettings)
    settings = load(TournamentSettings)
    # The tournaments' events are relayed by the process's one relay (its lane:
    # "tournament", emptied); the matches a pairing makes are matchmaking's streams, relayed
    # by matchmaking's lane. NATS may not be there yet: the relay waits, tournaments go on.
    async with (
        database(backend) as pools,
        process_outbox(backend, CATEGORY, announced) as outbox,
    ):
        store = PostgresEventStore(
            backend.database_url, pools=pools, partitions=backend.event_partitions
        )
        try:
            bells = GameBells()
            types = catalogue()
            tournaments = Tournaments(store)
            tournaments.changed = bells.ring
            clock = scaled_clock(settings.time_scale)
            driver = Driver(tournaments, types, clock)
            servicer = TournamentServicer(
                tournaments, types, settings, bells, clock, driver.wake.set
            )
            subjects = Subjects(prefix=backend.nats_subject_prefix, stream=backend.nats_stream)
            unsubscribe = await ring_from_bus(outbox.bus, subjects, CATEGORY, bells)
            health = BusHealth(outbox.bus)
            results = health.track(
                DurableConsumer(outbox.bus, CONSUMER, f"{subjects.prefix}.*.*.GameFinished")
            )

            async def drive() -> None:
                await driver.run(settings.driver_interval_seconds)

            async def follow() -> None:
                await driver.consume(results)

            try:
                yield Component(
                    name=CATEGORY,
                    services=[
                        GrpcService(
                            SERVICE_NAME,
                            lambda server: (
                                tournaments_pb2_grpc.add_TournamentServiceServicer_to_server(
                                    servicer, server
                                )
                            ),
                        )
                    ],
                    tasks=[outbox.run, drive, follow],
                    checks={BUS_HEALTH: health.problems},
                    extra={"tournaments": tournaments, "driver": driver, "bells": bells},
                )
            finally:
                await unsubscribe()
        finally:
            await store.close()
