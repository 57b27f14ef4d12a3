"""The two pools a process keeps to PostgreSQL, shared by its stores and its services' tables.

``Pools(url, statements=, transactions=, timeout=)`` holds a psycopg
``AsyncConnectionPool`` of autocommit connections for the event store's one-statement
calls (checkout ~10 us, against ~80 us through SQLAlchemy's pool) and a SQLAlchemy
engine for transactions (``store.engine``: the inbox, the directory, the deadline index,
matchmaking's and scoring's tables, an append that joins a transaction). Neither opens a
connection past its size: a caller waits up to ``timeout`` seconds for one, then gets
the pool's timeout, which the store and the services answer as ``UNAVAILABLE``
(``DATABASE_UNAVAILABLE``), for the client to retry.

``process_pools(url, statements=, transactions=, wait=)`` is the process's one ``Pools``
for a database (per event loop): every component of a process (the platform's games,
matchmaking, scoring, the relay's store) draws on it, so the process opens at most
``statements + transactions`` pooled connections however many components it hosts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from psycopg_pool import AsyncConnectionPool
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from parlor.eventstore.urls import libpq_url, sqlalchemy_url


def create_engine(
    url: str, *, pool_size: int = 10, max_overflow: int = 10, pool_timeout: float = 10.0
) -> AsyncEngine:
    """A pooled async engine for a plain ``postgresql://`` (or SQLAlchemy) URL."""
    return create_async_engine(
        sqlalchemy_url(url),
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_timeout=pool_timeout,
        pool_recycle=1800,
    )


class Pools:
    """A statement pool (psycopg) and a transaction pool (SQLAlchemy) to one database."""

    def __init__(
        self,
        url: str,
        *,
        statements: int,
        transactions: int,
        overflow: int = 0,
        timeout: float = 5.0,
        engine_timeout: float | None = None,
    ) -> None:
        self.url = url
        self.statements = statements
        self.transactions = transactions + overflow
        """The most connections each pool opens."""
        self._pool = AsyncConnectionPool(
            libpq_url(url),
            kwargs={"autocommit": True},
            min_size=1,
            max_size=statements,
            timeout=timeout,
            open=False,
            name="parlor-eventstore",
        )
        self._opened = False
        self.engine = create_engine(
            url,
            pool_size=transactions,
            max_overflow=overflow,
            pool_timeout=timeout if engine_timeout is None else engine_timeout,
        )

    async def fetch(self, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """One prepared statement on a pooled autocommit connection; binary rows as tuples.

        Raises the driver's errors and the pool's ``PoolTimeout`` as they are."""
        if not self._opened:
            self._opened = True
            await self._pool.open(wait=False)
        async with self._pool.connection() as conn, conn.cursor(binary=True) as cursor:
            await cursor.execute(sql, params, prepare=True)
            return await cursor.fetchall()

    async def close(self) -> None:
        try:
            if self._opened:
                await self._pool.close()
        finally:
            await self.engine.dispose()


class _Shared:
    def __init__(self, pools: Pools) -> None:
        self.pools = pools
        self.users = 0


_SHARED: dict[tuple[int, str], _Shared] = {}


@contextlib.asynccontextmanager
async def process_pools(
    url: str,
    *,
    statements: int,
    transactions: int,
    wait: float,
    transaction_wait: float | None = None,
) -> AsyncIterator[Pools]:
    """This process's pools to ``url``: made by the first user (with its sizes, ``wait``, the
    seconds a caller waits for a statement's connection, and ``transaction_wait`` for a
    transaction's, ``wait`` if not given), closed with the last."""
    key = (id(asyncio.get_running_loop()), url)
    shared = _SHARED.get(key)
    if shared is None:
        pools = Pools(
            url,
            statements=statements,
            transactions=transactions,
            timeout=wait,
            engine_timeout=transaction_wait,
        )
        shared = _SHARED[key] = _Shared(pools)
    shared.users += 1
    try:
        yield shared.pools
    finally:
        shared.users -= 1
        if shared.users == 0:
            if _SHARED.get(key) is shared:
                del _SHARED[key]
            await shared.pools.close()
