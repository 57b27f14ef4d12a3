"""Bring matchmaking's tables to the newest version: run by the component at start.

Alembic with its own version table (``parlor_matchmaking_alembic_version``) in the
event store's database. Safe to run from every replica at once: migrators share the
event store's migration advisory lock, and PostgreSQL's transactional DDL makes
each run all-or-nothing.
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
from sqlalchemy.pool import NullPool

from parlor.eventstore.schema import MIGRATE_LOCK
from parlor.eventstore.urls import sqlalchemy_url

VERSION_TABLE = "parlor_matchmaking_alembic_version"


def migrate_blocking(url: str, revision: str = "head") -> None:
    engine = create_engine(sqlalchemy_url(url), poolclass=NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATE_LOCK})
            config = Config()
            location = files("parlor.services.matchmaking") / "migrations"
            config.set_main_option("script_location", str(location))
            config.attributes["connection"] = conn
            command.upgrade(config, revision)
    finally:
        engine.dispose()


async def migrate(url: str, revision: str = "head") -> None:
    await asyncio.to_thread(migrate_blocking, url, revision)


def main(argv: list[str] | None = None) -> int:
    """Migrate the URL given, or ``$PARLOR_DATABASE_URL`` (for deploy hooks and operators)."""
    parser = argparse.ArgumentParser(prog="parlor-matchmaking-migrate", description=main.__doc__)
    parser.add_argument("url", nargs="?", default=os.environ.get("PARLOR_DATABASE_URL"))
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give a database URL or set PARLOR_DATABASE_URL")
    migrate_blocking(args.url)
    print("matchmaking schema at head", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
