"""Bring a database's event store schema to the newest version: ``await migrate(url)``.

Safe to run twice and concurrently (every service replica may run it at start):
migrators take a transaction-level advisory lock, and PostgreSQL's
transactional DDL makes each run all-or-nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from importlib.resources import files

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection
from sqlalchemy.pool import NullPool

from parlor.eventstore.schema import MIGRATE_LOCK
from parlor.eventstore.urls import sqlalchemy_url


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(files("parlor.eventstore") / "migrations"))
    config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection, revision: str) -> None:
    command.upgrade(_alembic_config(connection), revision)


def migrate_blocking(url: str, revision: str = "head") -> None:
    """``migrate`` for synchronous callers (CLI, test fixtures, deploy hooks)."""
    engine = create_engine(sqlalchemy_url(url), poolclass=NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATE_LOCK})
            _upgrade(conn, revision)
    finally:
        engine.dispose()


async def migrate(url: str, revision: str = "head") -> None:
    """Upgrade the schema at ``url`` (plain ``postgresql://`` accepted) to ``revision``."""
    await asyncio.to_thread(migrate_blocking, url, revision)


def main(argv: list[str] | None = None) -> int:
    """``parlor-migrate [URL]``: the URL defaults to ``$PARLOR_DATABASE_URL``."""
    parser = argparse.ArgumentParser(prog="parlor-migrate", description=main.__doc__)
    parser.add_argument("url", nargs="?", default=os.environ.get("PARLOR_DATABASE_URL"))
    parser.add_argument("--revision", default="head")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give a database URL or set PARLOR_DATABASE_URL")
    migrate_blocking(args.url, args.revision)
    print(f"event store schema at {args.revision}", file=sys.stderr)
    return 0


class SchemaMigrations:
    """A service's own Alembic history in the event store's database, migrated the same way.

    Its version table is its own; migrators share the event store's advisory lock, so
    every replica may run it at start. ``package`` holds a ``migrations`` folder whose
    ``env.py`` configures ``version_table=VERSION_TABLE`` on the given connection.
    """

    def __init__(self, package: str, name: str) -> None:
        self.package = package
        self.name = name
        self.version_table = f"parlor_{name}_alembic_version"

    def migrate_blocking(self, url: str, revision: str = "head") -> None:
        engine = create_engine(sqlalchemy_url(url), poolclass=NullPool)
        try:
            with engine.begin() as conn:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATE_LOCK})
                config = Config()
                location = files(self.package) / "migrations"
                config.set_main_option("script_location", str(location))
                config.attributes["connection"] = conn
                command.upgrade(config, revision)
        finally:
            engine.dispose()

    async def migrate(self, url: str, revision: str = "head") -> None:
        await asyncio.to_thread(self.migrate_blocking, url, revision)

    def main(self, argv: list[str] | None = None) -> int:
        """Migrate the URL given, or ``$PARLOR_DATABASE_URL`` (deploy hooks, operators)."""
        parser = argparse.ArgumentParser(prog=f"parlor-{self.name}-migrate")
        parser.add_argument("url", nargs="?", default=os.environ.get("PARLOR_DATABASE_URL"))
        args = parser.parse_args(argv)
        if not args.url:
            parser.error("give a database URL or set PARLOR_DATABASE_URL")
        self.migrate_blocking(args.url)
        print(f"{self.name} schema at head", file=sys.stderr)
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
