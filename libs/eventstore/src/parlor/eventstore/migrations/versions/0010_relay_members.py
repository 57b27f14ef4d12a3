"""The relay's live replicas, so that they share its parts between them; what a part verified.

``relay_members``: one row per running replica of a relay (``relay``: its lanes and the
store's number of partitions, ``holder``: the replica, as in ``relay_leases``), renewed
while it runs; a replica counts the rows not expired to know how many share the relay's
parts, takes no more than its share and hands over what it holds beyond it
(``relayshares.py``). Rows of replicas gone an hour are deleted by the others.

``relay_checkpoints.verified_position``: the last position of the part's own that its
holder's ``verify`` found on the stream, kept with its checkpoint, so that a replica taking
the part over (while other replicas publish the lane's other parts on the same subjects,
burying its last message) goes on from what its holder verified, not from nothing.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "relay_members",
        sa.Column("relay", sa.Text, nullable=False),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("relay", "holder", name="relay_members_pkey"),
    )
    op.add_column(
        "relay_checkpoints",
        sa.Column("verified_position", sa.BigInteger, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_column("relay_checkpoints", "verified_position")
    op.drop_table("relay_members")
