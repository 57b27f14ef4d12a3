"""Tickets and lobbies name a time control; tickets may ask for bots at once, at a level.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

``time_control`` is JSON (``{"kind": "fischer", "initial_seconds": 300, ...}``); NULL, as
for tickets and lobbies made before this revision, means the game type's default.
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "ALTER TABLE mm_tickets ADD COLUMN time_control jsonb,"
        " ADD COLUMN bots_at_once boolean NOT NULL DEFAULT false,"
        " ADD COLUMN bot_level text"
    )
    op.execute("ALTER TABLE mm_lobbies ADD COLUMN time_control jsonb")


def downgrade() -> None:
    op.execute("ALTER TABLE mm_lobbies DROP COLUMN time_control")
    op.execute(
        "ALTER TABLE mm_tickets DROP COLUMN time_control, DROP COLUMN bots_at_once,"
        " DROP COLUMN bot_level"
    )
