"""A ticket may choose to be findable: its player is found by id in the match's game.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-07

- ``mm_tickets.findable`` (false for every ticket before: no one was asked, and no one is
  findable unless they chose it; ``parlor.admission.privacy``).

Downgrade: the column goes; matches formed since keep their ``MatchFormed.findable_players``.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE mm_tickets ADD COLUMN findable boolean NOT NULL DEFAULT false")


def downgrade() -> None:
    op.execute("ALTER TABLE mm_tickets DROP COLUMN findable")
