"""Relay leadership by lease with a fencing token; what the relay knows of the stream; dead letters.

``relay_leases``: one row per relay; the holder renews ``expires_at`` every few
seconds, another replica takes the row once it has lapsed and bumps ``token``, so a
stale leader's checkpoint writes (which name their token) match nothing.
``relay_checkpoints.published_position`` is the last event the relay actually put on
the bus, ``stream_created`` the creation time of the JetStream stream it was put on:
together they tell a relay that the stream was lost or is behind.
``relay_dead_letters``: events the bus refused (too large, say), set aside so the
relay goes on with the next one.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "relay_leases",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("token", sa.BigInteger, nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
    )
    op.add_column(
        "relay_checkpoints",
        sa.Column("published_position", sa.BigInteger, nullable=False, server_default="0"),
    )
    op.add_column("relay_checkpoints", sa.Column("stream_created", sa.Text, nullable=True))
    op.create_table(
        "relay_dead_letters",
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("stream_id", sa.Text, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("recorded_at", TIMESTAMP, nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("name", "position", name="relay_dead_letters_pkey"),
    )


def downgrade() -> None:
    op.drop_table("relay_dead_letters")
    op.drop_column("relay_checkpoints", "stream_created")
    op.drop_column("relay_checkpoints", "published_position")
    op.drop_table("relay_leases")
