"""A ticket may end ``lobby_closed``: its lobby's host left before the game started.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06

- the status check takes ``lobby_closed`` (``TICKET_STATUS_LOBBY_CLOSED``);
- ``mm_tickets_finished``, the sweep's index of finished tickets in no match, covers it, as
  the sweep's statement names it (a partial index serves only a query whose condition
  implies the index's).

Downgrade: such tickets become ``cancelled``, the nearest status before this revision.
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ENDED_BEFORE = ("cancelled", "expired", "withdrawn")
ENDED_AFTER = (*ENDED_BEFORE, "lobby_closed")


def _statuses(ended: tuple[str, ...]) -> None:
    """The status check and the sweep's index, for these ended-without-a-game statuses."""
    every = ", ".join(f"'{s}'" for s in ("waiting", "matched", *ended))
    finished = ", ".join(f"'{s}'" for s in ended)
    op.execute(
        "ALTER TABLE mm_tickets DROP CONSTRAINT mm_tickets_status_check,"
        f" ADD CONSTRAINT mm_tickets_status_check CHECK (status IN ({every}))"
    )
    op.execute("DROP INDEX mm_tickets_finished")
    op.execute(
        f"CREATE INDEX mm_tickets_finished ON mm_tickets (closed_at) WHERE status IN ({finished})"
    )


def upgrade() -> None:
    _statuses(ENDED_AFTER)


def downgrade() -> None:
    op.execute("UPDATE mm_tickets SET status = 'cancelled' WHERE status = 'lobby_closed'")
    _statuses(ENDED_BEFORE)
