"""Matchmaking's and scoring's schemas: own Alembic version tables, safe to run again."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import psycopg
import pytest

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("command", "version_table", "table", "head"),
    [
        ("parlor-matchmaking-migrate", "parlor_matchmaking_alembic_version", "mm_tickets", "0005"),
        ("parlor-scoring-migrate", "parlor_scoring_alembic_version", "scoring_aliases", "0003"),
    ],
)
async def test_migration_command_is_idempotent_and_keeps_its_own_version(
    migrated: None, database_url: str, command: str, version_table: str, table: str, head: str
) -> None:
    found = shutil.which(command, path=str(Path(sys.executable).parent))
    assert found is not None
    for _ in range(2):
        process = await asyncio.create_subprocess_exec(found, database_url)
        assert await process.wait() == 0
    with psycopg.connect(database_url) as conn:
        assert conn.execute(f"SELECT version_num FROM {version_table}").fetchall() == [(head,)]
        assert conn.execute("SELECT to_regclass(%s)", (table,)).fetchone() == (table,)
        events_version = conn.execute(
            "SELECT count(*) FROM parlor_eventstore_alembic_version"
        ).fetchone()
    assert events_version == (1,)
