"""A flush of the deadline notes that cannot get a pooled connection in time (the pool
exhausted under load: SQLAlchemy's TimeoutError, no DBAPIError) keeps its notes for the
next flush, as for a database that is down; dropping them would leave games untimed."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import exc as sa_exc

from parlor.core.errors import Unavailable
from parlor.gamehost.drivers.deadlines import PostgresDeadlines

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class ExhaustedEngine:
    def begin(self) -> Any:
        raise sa_exc.TimeoutError("QueuePool limit of size 10 overflow 10 reached")


def test_notes_a_pool_timeout_kept_from_the_table_are_kept_for_the_next_flush() -> None:
    async def go() -> None:
        index = PostgresDeadlines(ExhaustedEngine(), flush_seconds=60)  # type: ignore[arg-type]
        await index.schedule("connect4x4", "g", T0, 3)
        with pytest.raises(Unavailable):
            await index.flush()
        assert index._pending == {("connect4x4", "g"): (T0, 3)}
        assert index._flusher is not None
        index._flusher.cancel()

    asyncio.run(go())
