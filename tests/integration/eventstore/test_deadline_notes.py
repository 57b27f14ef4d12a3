"""The deadline index's notes on PostgreSQL: what their flush costs the appends."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event, text

from parlor.eventstore import PostgresEventStore
from parlor.gamehost.drivers.deadlines import PostgresDeadlines

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.integration
async def test_a_flush_of_notes_commits_without_waiting_for_the_disk(
    migrated_url: str, unique: str
) -> None:
    """The notes are a hint a crash may lose: their commit does not take a WAL flush of its
    own (the appends' commits, which hold the append lock, would queue behind it)."""
    store = PostgresEventStore(migrated_url)
    index = PostgresDeadlines(store.engine, flush_seconds=60)
    seen: list[str] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(" ".join(statement.split()[:3]))

    event.listen(store.engine.sync_engine, "before_cursor_execute", note)
    try:
        await index.schedule(f"cat-{unique}", "g", T0, 1)
        await index.flush()
        # the upsert runs in a transaction that does not wait for the disk
        assert seen == ["SET LOCAL synchronous_commit", "INSERT INTO game_deadlines"]
        async with store.engine.connect() as conn:  # and only that transaction
            assert (await conn.execute(text("SHOW synchronous_commit"))).scalar() == "on"
        assert list(await index.due(f"cat-{unique}", T0)) == ["g"]
    finally:
        await store.close()


@pytest.mark.integration
async def test_the_mark_is_written_after_the_notes_and_waits_for_the_disk(
    migrated_url: str, unique: str
) -> None:
    """A recovery's mark says the notes before it are in the table: it is written after
    them, in a transaction that waits for the disk (the WAL is flushed in order, so the
    notes' commit, which did not wait, is on disk with it)."""
    store = PostgresEventStore(migrated_url)
    index = PostgresDeadlines(store.engine, flush_seconds=60)
    seen: list[str] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(" ".join(statement.split()[:3]))

    event.listen(store.engine.sync_engine, "before_cursor_execute", note)
    try:
        await index.schedule(f"cat-{unique}", "g", T0, 1)
        await index.cover(f"cat-{unique}", 7)
        assert seen == [
            "SET LOCAL synchronous_commit",
            "INSERT INTO game_deadlines",
            "INSERT INTO game_deadline_marks",
        ]
        other = PostgresDeadlines(store.engine)  # another replica reads both
        assert list(await other.due(f"cat-{unique}", T0)) == ["g"]
        assert await other.covered(f"cat-{unique}") == 7
    finally:
        await store.close()
