"""Game deadline markers: a game with nothing left to time keeps its row, deadline NULL.

Before this revision the row was deleted, so a late write of an older version (one
replica's notes flushed after another's newer ones) could insert a stale deadline
again. The row now stays as a marker of the newest version seen: an older version
never replaces it. The due index covers only rows with a deadline.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.alter_column("game_deadlines", "deadline", nullable=True)
    op.drop_index("game_deadlines_due", table_name="game_deadlines")
    op.create_index(
        "game_deadlines_due",
        "game_deadlines",
        ["category", "deadline"],
        postgresql_where=sa.text("deadline IS NOT NULL"),
    )


def downgrade() -> None:
    op.execute("DELETE FROM game_deadlines WHERE deadline IS NULL")
    op.drop_index("game_deadlines_due", table_name="game_deadlines")
    op.create_index("game_deadlines_due", "game_deadlines", ["category", "deadline"])
    op.alter_column("game_deadlines", "deadline", nullable=False)
