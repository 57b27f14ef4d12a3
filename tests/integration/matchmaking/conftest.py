"""Matchmaking tests share the session's database: no test leaves a waiting ticket behind."""

from __future__ import annotations

from collections.abc import AsyncIterator

import psycopg
import pytest


async def _cancel_waiting(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        exists = await (await conn.execute("SELECT to_regclass('mm_tickets')")).fetchone()
        if exists and exists[0] is not None:
            await conn.execute(
                "UPDATE mm_tickets SET status = 'cancelled' WHERE status = 'waiting'"
            )


@pytest.fixture
async def quiet_pool(database_url: str) -> AsyncIterator[None]:
    """No waiting tickets from other tests before or after this one."""
    await _cancel_waiting(database_url)
    yield
    await _cancel_waiting(database_url)
