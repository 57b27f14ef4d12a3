"""A doorbell that rings when an append commits: LISTEN on a dedicated connection.

Followers (subscriptions, the relay) clear it, read, and wait on it only when
they found nothing new; a slow poll timeout is the safety net for a lost
notification.

The store rings it (``Ringer``, on its statement pool) after an append has committed, not
inside the append's transaction: PostgreSQL makes a notifying transaction hold one lock
for the whole cluster from its commit until the commit returns (a synchronous standby's
round trip included), which would serialise every append of the deployment
(docs/scale.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from psycopg_pool import PoolTimeout

from parlor.eventstore.schema import NOTIFY_CHANNEL
from parlor.eventstore.tasks import cancel_until_done
from parlor.eventstore.urls import libpq_url

log = logging.getLogger(__name__)


class Doorbell:
    """Wakes followers of the store within milliseconds of a commit."""

    def __init__(self, url: str) -> None:
        self._url = libpq_url(url)
        self._rung = asyncio.Event()
        self._conn: psycopg.AsyncConnection[object] | None = None
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self._conn = await psycopg.AsyncConnection.connect(
            self._url,
            autocommit=True,
            keepalives=1,
            keepalives_idle=10,
            keepalives_interval=5,
            keepalives_count=3,
        )
        await self._conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
        self._task = asyncio.create_task(self._listen(self._conn), name="parlor-doorbell")
        self._rung.set()  # whatever was committed before LISTEN must be read once

    async def _listen(self, conn: psycopg.AsyncConnection[object]) -> None:
        async for _ in conn.notifies():
            self._rung.set()

    @property
    def alive(self) -> bool:
        return self._task is not None and not self._task.done()

    def clear(self) -> None:
        """Call before reading, so a commit during the read rings again."""
        self._rung.clear()

    async def wait(self, seconds: float) -> bool:
        """True if rung, False after ``seconds``; raises if the connection is lost."""
        if not self.alive:
            raise ConnectionError("the doorbell's LISTEN connection is closed")
        if self._rung.is_set():
            return True  # rung meanwhile (under load, mostly): no waiter, no timer
        waiter = asyncio.ensure_future(self._rung.wait())
        assert self._task is not None
        try:
            done, _ = await asyncio.wait(
                {waiter, self._task}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            waiter.cancel()
        if self._task in done:
            raise ConnectionError("the doorbell's LISTEN connection was lost")
        return waiter in done

    async def close(self) -> None:
        task, conn, self._task, self._conn = self._task, self._conn, None, None
        await _stop(task, conn)

    async def __aenter__(self) -> Doorbell:
        await self.open()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()


Fetch = Callable[[str, dict[str, Any]], Awaitable[list[tuple[Any, ...]]]]

# A ring's transaction does not wait for a standby or the disk (``set_config`` local to the
# statement's own transaction: a ring needs no durability), so it holds the notification
# lock for microseconds; the backend's pid names the ring for the tests.
_RING = (
    "SELECT pg_backend_pid(), set_config('synchronous_commit', 'off', true),"
    f" pg_notify('{NOTIFY_CHANNEL}', '')"
)


class Ringer:
    """Rings the doorbell after appends commit, one ``NOTIFY`` at a time on the store's
    statement pool (inside the process's connection budget): appends that commit while one
    is on its way share the next. A ring that fails is logged and dropped (followers poll);
    the next append rings again."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self.rings = 0
        """``NOTIFY``s sent."""
        self.backend_pid: int | None = None
        """The PostgreSQL backend the last ring came from."""

    def ring(self) -> None:
        """After a commit: make sure a ``NOTIFY`` goes after it."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="parlor-doorbell-ringer"
            )
        else:
            self._again = True

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                rows = await self._fetch(_RING, {})
            except (psycopg.Error, PoolTimeout, OSError) as exc:
                log.warning("could not ring the doorbell (%s); followers will poll", exc)
                return
            self.backend_pid = int(rows[0][0])
            self.rings += 1
            if not self._again:
                return

    async def close(self) -> None:
        task, self._task = self._task, None
        await _stop(task, None)


async def _stop(
    task: asyncio.Task[None] | None, conn: psycopg.AsyncConnection[object] | None
) -> None:
    """Cancel a doorbell's task, then close its connection, whatever the cancel raised."""
    try:
        if task is not None:
            await cancel_until_done(task)
    finally:
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
