"""Game deadline marks: how far each game type's deadline notes are known written.

The deadline notes (``game_deadlines``) are flushed apart from the appends, so a replica
that dies loses its last ones. One row per game type (``category``): the store position
up to which every game with an event at or before it has its note in ``game_deadlines``
at a version that includes that event (or nothing to time: ended, untimed). A sweeper's
recovery reads the game type's games after the mark only (in SQL, by position), notes
each again from its own events and then raises the mark, never lowering it, so a
recovery after any number of events since misses no game and reads nothing twice.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_deadline_marks",
        sa.Column("category", sa.Text, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_deadline_marks")
