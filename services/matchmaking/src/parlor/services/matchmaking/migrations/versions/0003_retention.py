"""Indexes for locking a lobby's tickets and for the retention sweep.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-04

- ``mm_tickets_lobby``: a lobby's tickets (the round finds the lobbies it must lock, the
  sweep asks whether a lobby still has any, ``Lobbies.lock`` whether its host waits),
  without a scan of every ticket.
- ``mm_tickets_finished``: finished tickets that are in no match, oldest first, for the
  sweep (matched tickets go with their match, through ``mm_match_players``).
- ``mm_matches_formed_at`` and ``mm_lobbies_created_at``: old matches and lobbies first.
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX mm_tickets_lobby ON mm_tickets (lobby) WHERE lobby IS NOT NULL")
    op.execute(
        "CREATE INDEX mm_tickets_finished ON mm_tickets (closed_at)"
        " WHERE status IN ('cancelled', 'expired', 'withdrawn')"
    )
    op.execute("CREATE INDEX mm_matches_formed_at ON mm_matches (formed_at)")
    op.execute("CREATE INDEX mm_lobbies_created_at ON mm_lobbies (created_at)")


def downgrade() -> None:
    op.execute(
        "DROP INDEX mm_lobbies_created_at, mm_matches_formed_at, mm_tickets_finished,"
        " mm_tickets_lobby"
    )
