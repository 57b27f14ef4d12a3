"""Game deadlines: when each timed game next needs its clock, for the sweepers.

One row per timed game in progress (``category``, ``game_id``): the earliest deadline
of its running clocks and the stream version it was computed at. A game host writes
the row after each append to a timed game (a later version never loses to an earlier
one) and deletes it when nothing is left to time out; every replica's sweeper reads
the due rows through the ``(deadline)`` index. The row is only a hint: the sweeper
decides the timeout on the game's own events, and the expected version of the append
is what keeps two replicas from appending two timeouts.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_deadlines",
        sa.Column("category", sa.Text, nullable=False),
        sa.Column("game_id", sa.Text, nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("category", "game_id", name="game_deadlines_pkey"),
    )
    op.create_index("game_deadlines_due", "game_deadlines", ["category", "deadline"])


def downgrade() -> None:
    op.drop_index("game_deadlines_due", table_name="game_deadlines")
    op.drop_table("game_deadlines")
