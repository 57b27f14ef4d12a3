"""Guest ids claimed by accounts: whose results a guest's are.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-07

``scoring_aliases`` holds each guest id an account claimed (``GuestIdClaimed``, stream
``accountguest-<guest id>``) and the position of the claim. Scoring keeps every result
under the id it counts under (the account's, for a claimed guest): a claim re-keys the
guest's rows and refolds the game types it played, and the rebuild applies the same map
to every game, before or after the claim, so both give the same numbers.
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE IF NOT EXISTS scoring_aliases (
            guest_id text PRIMARY KEY,
            player_id text NOT NULL,
            position bigint NOT NULL
        )
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS scoring_aliases")
