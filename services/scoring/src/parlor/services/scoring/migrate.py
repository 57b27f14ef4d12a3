"""Bring scoring's tables to the newest version: run by the component at start.

Alembic with its own version table (``parlor_scoring_alembic_version``) in the event
store's database, migrated as the event store is (see ``SchemaMigrations``).
"""

from __future__ import annotations

from parlor.eventstore.migrate import SchemaMigrations

MIGRATIONS = SchemaMigrations("parlor.services.scoring", "scoring")
VERSION_TABLE = MIGRATIONS.version_table
migrate_blocking = MIGRATIONS.migrate_blocking
migrate = MIGRATIONS.migrate
main = MIGRATIONS.main

if __name__ == "__main__":
    raise SystemExit(main())
