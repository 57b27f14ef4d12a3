"""The relay (transactional outbox): every committed event reaches the bus, once, in order.

It follows the store's global order from a checkpoint kept in PostgreSQL and
publishes each event with ``Nats-Msg-Id = <stream>:<version>``, so anything
replayed after a crash (published, not yet checkpointed) is dropped by
JetStream's dedupe window. One replica leads at a time: the one holding a
session-level advisory lock on its own connection; the others retry the lock
and take over within ``takeover_interval`` when the leader's connection dies.
Checkpoints are written on that same connection, so a leader that lost its
lock cannot move the checkpoint. A LISTEN doorbell wakes it within
milliseconds of a commit; ``poll_interval`` is only the safety net.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import Callable, Sequence

import psycopg

from parlor.core.errors import Unavailable
from parlor.eventstore.bus import Bus
from parlor.eventstore.doorbell import Doorbell
from parlor.eventstore.events import RecordedEvent
from parlor.eventstore.postgres import PostgresEventStore
from parlor.eventstore.schema import RELAY_LOCK_BASE
from parlor.eventstore.urls import libpq_url

log = logging.getLogger(__name__)

Redact = Callable[[RecordedEvent], RecordedEvent | None]

_SERVER_KEEPALIVES = (
    ("tcp_keepalives_idle", 10),
    ("tcp_keepalives_interval", 5),
    ("tcp_keepalives_count", 3),
)


def keep(event: RecordedEvent) -> RecordedEvent | None:
    """The default ``redact``: publish every event as it is."""
    return event


class Relay:
    """Publishes the store's events to the bus; run one per service replica, one leads."""

    def __init__(
        self,
        store: PostgresEventStore,
        bus: Bus,
        *,
        name: str = "default",
        redact: Redact = keep,
        batch_size: int = 500,
        poll_interval: float = 1.0,
        takeover_interval: float = 0.5,
        max_backoff: float = 2.0,
        window: int = 64,
    ) -> None:
        self.store = store
        self.bus = bus
        self.name = name
        self.redact = redact
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.takeover_interval = takeover_interval
        self.max_backoff = max_backoff
        self.window = window
        self.lock_key = RELAY_LOCK_BASE + zlib.crc32(name.encode())
        self.is_leader = False
        self.published = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self.run(), name=f"parlor-relay-{self.name}")

    async def stop(self) -> None:
        """Stop publishing and release leadership (another replica takes over)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    async def run(self) -> None:
        """Wait for leadership, lead until the lock connection is lost, repeat; never returns."""
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    libpq_url(self.store.url),
                    autocommit=True,
                    keepalives=1,
                    keepalives_idle=10,
                    keepalives_interval=5,
                    keepalives_count=3,
                )
                try:
                    # A leader that vanishes without closing its socket (node lost) must
                    # lose its lock in seconds, not after the kernel's two-hour default.
                    for setting, value in _SERVER_KEEPALIVES:
                        await conn.execute(f"SET {setting} = {value}")
                    await self._wait_for_lock(conn)
                    self.is_leader = True
                    log.info("relay %s leads", self.name)
                    await self._lead(conn)
                finally:
                    self.is_leader = False
                    with contextlib.suppress(Exception):
                        await conn.close()  # the session lock goes with the connection
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("relay %s stepped down: %s", self.name, exc)
                await asyncio.sleep(self.takeover_interval)

    async def _wait_for_lock(self, conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
        while True:
            row = await (
                await conn.execute("SELECT pg_try_advisory_lock(%s)", (self.lock_key,))
            ).fetchone()
            if row is not None and row[0]:
                return
            await asyncio.sleep(self.takeover_interval)

    async def _lead(self, conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
        checkpoint = await self._load_checkpoint(conn)
        async with Doorbell(self.store.url) as bell:
            while True:
                bell.clear()
                batch = await self.store.read_all(checkpoint + 1, self.batch_size)
                if batch:
                    await self.publish_batch(batch, conn)
                    checkpoint = batch[-1].position
                    await self.save_checkpoint(conn, checkpoint)
                    if len(batch) == self.batch_size:
                        continue
                if not await bell.wait(self.poll_interval):
                    await conn.execute("SELECT 1")  # still holding the lock's connection?

    async def publish_batch(
        self, batch: Sequence[RecordedEvent], conn: psycopg.AsyncConnection[tuple[object, ...]]
    ) -> None:
        """Publish in order, ``window`` at a time; while the bus is down, retry from the gap.

        The publishes of a window leave in order on one NATS connection, so what
        JetStream stored is a prefix of it; the rest is sent again (dedupe drops repeats).
        """
        outgoing = [(event, out) for event in batch if (out := self.redact(event)) is not None]
        start, backoff = 0, 0.05
        while start < len(outgoing):
            window = outgoing[start : start + self.window]
            results = await asyncio.gather(
                *(self.bus.publish_event(out) for _, out in window), return_exceptions=True
            )
            done = 0
            for result in results:
                if isinstance(result, BaseException):
                    break
                done += 1
            self.published += done
            start += done
            if done == len(window):
                backoff = 0.05
                continue
            failure = results[done]
            assert isinstance(failure, BaseException)
            if not isinstance(failure, Unavailable):
                raise failure
            log.warning("relay %s: bus unavailable (%s); retrying", self.name, failure)
            first_unpublished = outgoing[start][0].position
            if first_unpublished > 1:
                await self.save_checkpoint(conn, first_unpublished - 1)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self.max_backoff)

    async def _load_checkpoint(self, conn: psycopg.AsyncConnection[tuple[object, ...]]) -> int:
        await conn.execute(
            "INSERT INTO relay_checkpoints (name, position, updated_at) VALUES (%s, 0, now()) "
            "ON CONFLICT (name) DO NOTHING",
            (self.name,),
        )
        row = await (
            await conn.execute(
                "SELECT position FROM relay_checkpoints WHERE name = %s", (self.name,)
            )
        ).fetchone()
        assert row is not None
        position = row[0]
        assert isinstance(position, int)
        return position

    async def save_checkpoint(
        self, conn: psycopg.AsyncConnection[tuple[object, ...]], position: int
    ) -> None:
        """Remember the last published position; never moves back."""
        await conn.execute(
            "UPDATE relay_checkpoints SET position = greatest(position, %s), updated_at = now() "
            "WHERE name = %s",
            (position, self.name),
        )

    async def checkpoint(self) -> int:
        """The last position this relay published (for monitoring and tests)."""
        async with await psycopg.AsyncConnection.connect(
            libpq_url(self.store.url), autocommit=True
        ) as conn:
            row = await (
                await conn.execute(
                    "SELECT position FROM relay_checkpoints WHERE name = %s", (self.name,)
                )
            ).fetchone()
        return int(row[0]) if row is not None else 0

    async def lag(self) -> int:
        """How many positions the bus is behind the store (for metrics)."""
        return await self.store.head_position() - await self.checkpoint()
