"""What every service's process connects to, set up one way: its pools, its bus and its relay.

Every connection of a process to PostgreSQL comes from one budget,
``PARLOR_DATABASE_POOL_SIZE`` (``parlor.kit.connections``): the process's pools
(``database``: one statement pool and one engine, shared by every store of the process and
the services' own tables) and the relay's session and LISTEN.

The NATS connection and the relay are the process's (``ProcessOutbox``): a platform
hosting several games and services reads the global order once and publishes every
category's events, each through its own ``public`` redaction and under its own lease and
checkpoint. A game service's backends (``parlor.gamehost.wiring.backends``) add its deadlines, its
match consumer and its sweeper to these.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from parlor.eventstore import JetStreamBus, NatsCredentials, PostgresEventStore, Relay, Subjects
from parlor.eventstore.monitor import watch_relay
from parlor.eventstore.pools import Pools, process_pools
from parlor.eventstore.tasks import cancel_until_done
from parlor.kit.connections import ConnectionBudget
from parlor.kit.settings import BackendSettings
from parlor.runtime.outbox import Public, category_lane

POOL_TIMEOUT = 2.0
"""How long a call waits for a pooled connection for a statement (the event store's): with
the pool all in use, or the database down, a player hears UNAVAILABLE within a couple of
seconds (and the client's retries fit in its deadline)."""
TRANSACTION_POOL_TIMEOUT = 10.0
"""How long a call waits for a transaction's connection (tickets, lobbies, the directory):
a surge of arrivals queues there (make bench's 500-game step had CreateTicket wait out
2 s on a full machine and its players hear UNAVAILABLE), while a database that is down
fails a transaction as it connects or runs, not by this wait."""


@contextlib.asynccontextmanager
async def database(settings: BackendSettings) -> AsyncIterator[Pools]:
    """This process's pools to its database, sized from its connection budget (the relay's
    sessions left out): every store and table of the process draws on them."""
    budget = ConnectionBudget(settings.database_pool_size)
    async with process_pools(
        settings.database_url,
        statements=budget.statements,
        transactions=budget.transactions,
        wait=POOL_TIMEOUT,
        transaction_wait=TRANSACTION_POOL_TIMEOUT,
    ) as pools:
        yield pools


class ProcessOutbox:
    """One NATS connection and one relay per process, for every game category it hosts.

    The game components of a process (the platform: Connect 4x4, Upwords, Take Four, ...)
    each add their category's lane; the relay reads the global order once for all of
    them (only their categories, in SQL), each lane under its own lease and checkpoint,
    so a process hosting one game (``--only connect4x4``, a pod) relays just its own.
    It runs while any component's relay task runs; closes with its last component.
    """

    def __init__(
        self,
        key: tuple[object, ...],
        store: PostgresEventStore,
        bus: JetStreamBus,
        resources: contextlib.AsyncExitStack | None = None,
    ):
        self.key = key
        self.store = store
        self.bus = bus
        self._resources = resources or contextlib.AsyncExitStack()
        """The store and the process's pools, closed with the outbox."""
        self.relay = Relay(store, bus, lanes=[], spread=True)  # parts shared: relayshares.py
        self.users = 0
        self._runners = 0
        self._task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        """Run the relay (and its metrics) for as long as any component's task does."""
        self._runners += 1
        try:
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._relay(), name="parlor-process-relay")
            await asyncio.shield(self._task)
        finally:
            self._runners -= 1
            if self._runners == 0:
                await self._stop()

    async def _relay(self) -> None:
        """The relay runs in this very task, its metrics in one beside it.

        Not ``gather``: a cancelled gather is done as soon as one child is (the metrics,
        at once), while the relay may still be unwinding, or may have swallowed the
        cancellation (nats-py's wait_for on 3.11) and run on. ``_stop`` would then see
        this task done, close the bus, and leave the relay leading on a closed bus,
        renewing its lanes' leases for good. Here the task is done only when the relay
        has ended, so cancelling it until it is done stops the relay itself.
        """
        monitor = asyncio.create_task(watch_relay(self.relay), name="parlor-relay-monitor")
        try:
            await self.relay.run()
        finally:
            await cancel_until_done(monitor)

    async def _stop(self) -> None:
        """Cancel the relay until it has ended. Once is not enough: on Python 3.11 a
        library's wait_for (nats-py publishing) can swallow a cancellation, and a relay
        left running on a closed bus would hold its lanes' leases from every later relay.
        The task is forgotten only once it has ended, so a stop that is itself cancelled
        leaves it to the next (``close``)."""
        task = self._task
        if task is None:
            return
        await cancel_until_done(task)
        if self._task is task:
            self._task = None

    async def close(self) -> None:
        await self._stop()
        try:
            await self.bus.close()
        finally:
            await self._resources.aclose()


_OUTBOXES: dict[tuple[object, ...], ProcessOutbox] = {}


@contextlib.asynccontextmanager
async def process_outbox(
    settings: BackendSettings, category: str, public: Public
) -> AsyncIterator[ProcessOutbox]:
    """This process's outbox for these backends, with ``category``'s lane added."""
    subjects = Subjects(prefix=settings.nats_subject_prefix, stream=settings.nats_stream)
    key = (
        id(asyncio.get_running_loop()),
        settings.database_url,
        settings.nats_url,
        subjects.prefix,
        subjects.stream,
    )
    outbox = _OUTBOXES.get(key)
    if outbox is None:
        # The relay's own reads go on its own session; its store's pool (the process's) is
        # for the lag metric.
        async with contextlib.AsyncExitStack() as stack:
            pools = await stack.enter_async_context(database(settings))
            store = PostgresEventStore(
                settings.database_url, pools=pools, partitions=settings.event_partitions
            )
            stack.push_async_callback(store.close)
            # NATS may not be there yet: the bus keeps trying, the service reports NOT_SERVING.
            credentials = NatsCredentials.of(settings)
            bus = await JetStreamBus.open(
                settings.nats_url,
                subjects,
                credentials=credentials,
                max_age=settings.nats_stream_max_age,
                replicas=settings.nats_stream_replicas,
            )
            outbox = _OUTBOXES.get(key)
            if outbox is None:
                outbox = _OUTBOXES[key] = ProcessOutbox(key, store, bus, stack.pop_all())
            else:  # another component opened it meanwhile
                await bus.close()
    if category not in outbox.relay.lanes:
        # (a second component of the same game in one process shares the first's lane)
        outbox.relay.add_lane(category_lane(category, public))
    outbox.users += 1
    try:
        yield outbox
    finally:
        outbox.users -= 1
        if outbox.users == 0:
            _OUTBOXES.pop(key, None)
            await outbox.close()
