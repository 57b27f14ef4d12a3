"""What every game service connects to, set up one way: store, bus, its relay, its doorbell.

A game service's component is then its host, its servicer and this:

    async with game_backends("upwords", public) as backends:
        host = GameHost("upwords", rules(), Codec(), backends.store)
        servicer = ...
        async with backends.ringing(host.doorbell):
            yield Component(..., tasks=backends.tasks(servicer.create_from_match))
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

from parlor.core.errors import Unavailable
from parlor.eventstore import JetStreamBus, NatsCredentials, PostgresEventStore, Relay, Subjects
from parlor.eventstore.monitor import watch_relay
from parlor.gamehost.bell import ring_from_bus
from parlor.gamehost.deadlines import PostgresDeadlines
from parlor.gamehost.doorbell import Doorbell
from parlor.gamehost.matches import CreateFromMatch, consume_matches
from parlor.gamehost.outbox import Public, category_relay, everything
from parlor.gamehost.sweeper import Sweeper
from parlor.kit.settings import BackendSettings, load


@dataclass
class GameBackends:
    category: str
    store: PostgresEventStore
    bus: JetStreamBus
    subjects: Subjects
    relay: Relay
    deadlines: PostgresDeadlines
    """When each timed game next needs its clock: give it to the host, and the sweeper."""

    @property
    def ready(self) -> list[asyncio.Event]:
        """Set once NATS has answered (for ``Component.ready``)."""
        return [self.bus.ready]

    @contextlib.asynccontextmanager
    async def ringing(self, doorbell: Doorbell) -> AsyncIterator[None]:
        """Wake this replica's watchers for events other replicas append."""
        unsubscribe = await ring_from_bus(self.bus, self.subjects, self.category, doorbell)
        try:
            yield
        finally:
            await unsubscribe()

    def tasks(
        self, create_from_match: CreateFromMatch, sweeper: Sweeper | None = None
    ) -> Sequence[Callable[[], Awaitable[None]]]:
        """The background work of a game service: its relay (and its lag's metrics), its
        MatchFormed consumer (which believes only matches the store holds) and its clock
        sweeper (timeouts of games nobody touches; every replica sweeps)."""
        tasks: list[Callable[[], Awaitable[None]]] = [
            self.relay.run,
            lambda: watch_relay(self.relay),
            lambda: consume_matches(self.bus, self.store, self.category, create_from_match),
        ]
        if sweeper is not None:
            tasks.append(sweeper.run)
        return tasks


@contextlib.asynccontextmanager
async def game_backends(
    category: str,
    public: Public | None = everything,
    store_type: type[PostgresEventStore] = PostgresEventStore,
) -> AsyncIterator[GameBackends]:
    """PostgreSQL and NATS from the settings; ``public`` strips what others may not see
    (None: a game that hides nothing, as ``GameType.public`` says).

    ``store_type`` is the store class to open (a subclass that also counts appends, say).
    """
    settings = load(BackendSettings)
    # A short wait for a pooled connection: with the database down, a player hears UNAVAILABLE
    # within a couple of seconds (and the client's retries fit in its deadline).
    store = store_type(
        settings.database_url, pool_size=settings.database_pool_size, pool_timeout=2.0
    )
    try:
        subjects = Subjects(prefix=settings.nats_subject_prefix, stream=settings.nats_stream)
        # NATS may not be there yet: the bus keeps trying, the service reports NOT_SERVING.
        credentials = NatsCredentials.of(settings)
        bus = await JetStreamBus.open(settings.nats_url, subjects, credentials=credentials)
        try:
            # The server's max payload if NATS answered at once, else NATS's 1 MiB default.
            store.limit_events_to(bus.max_payload)
            relay = category_relay(store, bus, category, public or everything)
            deadlines = PostgresDeadlines(store.engine)
            try:
                yield GameBackends(category, store, bus, subjects, relay, deadlines)
            finally:
                with contextlib.suppress(Unavailable):
                    await deadlines.close()
        finally:
            await bus.close()
    finally:
        await store.close()
