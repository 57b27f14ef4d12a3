"""The doorbell rung after an append's commit, not inside its transaction.

Until now a statement trigger on ``events`` ran ``pg_notify`` in every appending
transaction. PostgreSQL makes a transaction that notifies take one lock for the whole
cluster at its commit (the notification queue's, so that notifications keep commit
order) and hold it until the commit has returned, which behind a synchronous standby
includes the round trip to it: every append of the deployment queued on that lock as
well as on the append lock, and no split of the append lock could lift anything
(docs/scale.md). The store now rings the doorbell itself once the append has committed,
in a statement of its own whose transaction waits for no standby; an append joined
to a caller's transaction (``append(connection=...)``) notifies in that transaction, as
before. Processes of the release before this one ring nothing: their appends are found
by the followers' poll (``poll_interval``, 1 s) until they are replaced.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS events_notify ON events")
    op.execute("DROP FUNCTION IF EXISTS parlor_events_notify()")


def downgrade() -> None:
    spec = importlib.util.spec_from_file_location(
        "events_0001", Path(__file__).with_name("0001_events.py")
    )
    assert spec is not None
    assert spec.loader is not None
    first = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(first)
    for statement in first.NOTIFY_TRIGGER:
        op.execute(statement)
