"""A doorbell that rings when an append commits: LISTEN on a dedicated connection.

Followers (subscriptions, the relay) clear it, read, and wait on it only when
they found nothing new; a slow poll timeout is the safety net for a lost
notification.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import psycopg

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
        try:
            if self._task is not None:
                await cancel_until_done(self._task)
                self._task = None
        finally:
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    await self._conn.close()
                self._conn = None

    async def __aenter__(self) -> Doorbell:
        await self.open()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
