"""Alembic environment: runs on the connection handed over by ``parlor.eventstore.migrate``."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from parlor.eventstore.schema import metadata

VERSION_TABLE = "parlor_eventstore_alembic_version"


def run_migrations_online() -> None:
    """Migrate on the caller's connection, inside the caller's transaction and lock."""
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError("run migrations with parlor.eventstore.migrate (or parlor-migrate)")
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        transactional_ddl=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
