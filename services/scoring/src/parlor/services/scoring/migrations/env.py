"""Alembic environment: runs on the connection handed over by ``migrate``."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from parlor.services.scoring.migrate import VERSION_TABLE


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError("run migrations with parlor.services.scoring.migrate")
    context.configure(connection=connection, version_table=VERSION_TABLE, transactional_ddl=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
