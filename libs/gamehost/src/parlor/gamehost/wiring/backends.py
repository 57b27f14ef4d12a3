"""A game service's backends: the process's store, bus and relay (``parlor.runtime.backends``)
and what a game adds to them: its deadlines, its MatchFormed consumer, its sweeper and the
bells rung from the bus.

A game service's component is then its host, its servicer and this:

    async with game_backends("upwords", public) as backends:
        host = GameHost("upwords", rules(), Codec(), backends.store)
        servicer = ...
        async with backends.ringing(host.bells):
            yield Component(..., tasks=backends.tasks(servicer.pipeline.create_from_match))
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from parlor.core.errors import Unavailable
from parlor.eventstore import BusHealth, JetStreamBus, PostgresEventStore, Relay, Subjects
from parlor.gamehost.drivers.deadlines import PostgresDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.pipeline.matches import CreateFromMatch, consume_matches, match_consumer
from parlor.kit.server import BUS_HEALTH, HealthCheck
from parlor.kit.settings import BackendSettings, load
from parlor.runtime.backends import ProcessOutbox, database, process_outbox
from parlor.runtime.bells import GameBells, ring_from_bus
from parlor.runtime.outbox import Public, everything


@dataclass
class GameBackends:
    category: str
    store: PostgresEventStore
    bus: JetStreamBus
    """The process's NATS connection, shared by its game components."""
    subjects: Subjects
    outbox: ProcessOutbox
    deadlines: PostgresDeadlines
    """When each timed game next needs its clock: give it to the host, and the sweeper."""
    bus_health: BusHealth = field(init=False)
    """NATS and this game's consumers, as the health name ``parlor.bus`` reports them."""

    def __post_init__(self) -> None:
        self.bus_health = BusHealth(self.bus)

    @property
    def relay(self) -> Relay:
        """The process's relay; this game's lane is ``relay.lanes[category]``."""
        return self.outbox.relay

    @property
    def ready(self) -> list[asyncio.Event]:
        """Nothing to wait for (``Component.ready``): a game service stores commands while
        NATS is away, and the relay publishes them once it answers (see ``checks``)."""
        return []

    @property
    def checks(self) -> dict[str, HealthCheck]:
        """``parlor.bus``: NATS and the MatchFormed consumer (``Component.checks``)."""
        return {BUS_HEALTH: self.bus_health.problems}

    @contextlib.asynccontextmanager
    async def ringing(self, bells: GameBells) -> AsyncIterator[None]:
        """Wake this replica's watchers for events other replicas append."""
        unsubscribe = await ring_from_bus(self.bus, self.subjects, self.category, bells)
        try:
            yield
        finally:
            await unsubscribe()

    def tasks(
        self, create_from_match: CreateFromMatch, sweeper: Sweeper | None = None
    ) -> Sequence[Callable[[], Awaitable[None]]]:
        """The background work of a game service: the process's relay (and its lag's
        metrics; one for every game of the process), its MatchFormed consumer (which
        believes only matches the store holds) and its clock sweeper (timeouts of games
        nobody touches; every replica sweeps)."""
        matches = match_consumer(self.bus, self.category, self.bus_health)
        tasks: list[Callable[[], Awaitable[None]]] = [
            self.outbox.run,
            lambda: consume_matches(matches, self.store, self.category, create_from_match),
        ]
        if sweeper is not None:
            tasks.append(sweeper.run)
        return tasks


@contextlib.asynccontextmanager
async def game_backends(
    category: str,
    public: Public | None = everything,
) -> AsyncIterator[GameBackends]:
    """PostgreSQL and NATS from the settings; ``public`` strips what others may not see
    (None: a game that hides nothing, as ``GameType.public`` says)."""
    settings = load(BackendSettings)
    async with (
        database(settings) as pools,
        process_outbox(settings, category, public or everything) as outbox,
    ):
        store = PostgresEventStore(
            settings.database_url, pools=pools, partitions=settings.event_partitions
        )
        try:
            # The server's max payload, read at each append: NATS may answer only later.
            bus = outbox.bus
            store.limit_events_to(lambda: bus.max_payload)
            deadlines = PostgresDeadlines(store.engine)
            try:
                yield GameBackends(
                    category, store, outbox.bus, outbox.bus.subjects, outbox, deadlines
                )
            finally:
                with contextlib.suppress(Unavailable):
                    await deadlines.close()
        finally:
            await store.close()
