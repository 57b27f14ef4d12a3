"""The platform creates the database it is pointed at when it may (devinfra.ensure_database)."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from parlor.devinfra import scratch
from parlor.devinfra.backends import ensure_database, with_database

pytestmark = pytest.mark.integration


def _exists(server_url: str, name: str) -> bool:
    with psycopg.connect(server_url) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
    return found is not None


def _drop(server_url: str, name: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_missing_database_is_created_once(database_url: str) -> None:
    name = scratch.scratch_name("test")
    url = with_database(database_url, name)
    try:
        assert ensure_database(url) == f"created database {name!r}"
        assert _exists(database_url, name)
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT current_database()").fetchone() == (name,)
        assert ensure_database(url) is None  # there now: nothing to do
    finally:
        _drop(database_url, name)


def test_a_name_needing_quotes_is_created_as_named(database_url: str) -> None:
    name = f"Parlor Ensure-{uuid.uuid4().hex[:6]}"
    url = with_database(database_url, name.replace(" ", "%20"))
    try:
        assert ensure_database(url) == f"created database {name!r}"
        assert _exists(database_url, name)
    finally:
        _drop(database_url, name)


def test_a_role_that_may_not_create_databases_changes_nothing(database_url: str) -> None:
    role = f"parlor_nocreate_{uuid.uuid4().hex[:8]}"
    name = scratch.scratch_name("test")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN NOCREATEDB')
    try:
        url = with_database(database_url, name).replace("//postgres@", f"//{role}@", 1)
        assert ensure_database(url) is None
        assert not _exists(database_url, name)
    finally:
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')
        _drop(database_url, name)


def test_an_unreachable_server_is_left_to_the_connection_that_follows() -> None:
    assert ensure_database("postgresql://postgres@127.0.0.1:1/parlor") is None
