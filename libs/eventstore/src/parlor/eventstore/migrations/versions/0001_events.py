"""Events, command results, relay checkpoints and the consumers' inbox.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)

# The whole append in one round trip. Appends are serialised by a transaction-level
# advisory lock taken first, so global positions are handed out in commit order and a
# reader following positions never skips an event that commits late. Each statement
# below runs after the lock with a fresh snapshot (READ COMMITTED), so it sees every
# append committed before. The lock key is parlor.eventstore.schema.APPEND_LOCK.
APPEND_FUNCTION = """
CREATE FUNCTION parlor_append(
    p_stream_id text,
    p_expected bigint,
    p_command_id text,
    p_types text[],
    p_schema_versions integer[],
    p_data bytea[],
    p_actors text[],
    p_causation_ids text[],
    p_correlation_ids text[],
    p_extras jsonb[]
) RETURNS TABLE (
    r_outcome text,
    r_first_version bigint,
    r_last_version bigint,
    r_first_position bigint,
    r_last_position bigint
) LANGUAGE plpgsql AS $$
DECLARE
    v_current bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(31632341465002497);
    IF p_command_id IS NOT NULL THEN
        SELECT 'duplicate', c.first_version, c.last_version, c.first_position, c.last_position
          INTO r_outcome, r_first_version, r_last_version, r_first_position, r_last_position
          FROM event_commands c
         WHERE c.stream_id = p_stream_id AND c.command_id = p_command_id;
        IF FOUND THEN
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;
    SELECT coalesce(max(e.version), 0) INTO v_current FROM events e WHERE e.stream_id = p_stream_id;
    IF p_expected <> -1 AND v_current <> p_expected THEN
        r_outcome := 'conflict';
        r_last_version := v_current;
        RETURN NEXT;
        RETURN;
    END IF;
    WITH written AS (
        INSERT INTO events (stream_id, version, type, schema_version, data, command_id,
                            actor, causation_id, correlation_id, extra, recorded_at)
        SELECT p_stream_id, v_current + n.ord, n.type, n.schema_version, n.data, p_command_id,
               n.actor, n.causation_id, n.correlation_id, n.extra, now()
          FROM unnest(p_types, p_schema_versions, p_data, p_actors, p_causation_ids,
                      p_correlation_ids, p_extras)
               WITH ORDINALITY AS n(type, schema_version, data, actor, causation_id,
                                    correlation_id, extra, ord)
         ORDER BY n.ord
        RETURNING version, position
    )
    SELECT min(w.version), max(w.version), min(w.position), max(w.position)
      INTO r_first_version, r_last_version, r_first_position, r_last_position
      FROM written w;
    IF p_command_id IS NOT NULL THEN
        INSERT INTO event_commands (stream_id, command_id, first_version, last_version,
                                    first_position, last_position, recorded_at)
        VALUES (p_stream_id, p_command_id, r_first_version, r_last_version,
                r_first_position, r_last_position, now());
    END IF;
    r_outcome := 'appended';
    RETURN NEXT;
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("position", sa.BigInteger, sa.Identity(always=True), primary_key=True),
        sa.Column("stream_id", sa.Text, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("command_id", sa.Text),
        sa.Column("actor", sa.Text),
        sa.Column("causation_id", sa.Text),
        sa.Column("correlation_id", sa.Text),
        sa.Column("extra", JSONB),
        sa.Column("recorded_at", TIMESTAMP, nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("stream_id", "version", name="events_stream_version_key"),
        sa.CheckConstraint("version >= 1", name="events_version_positive"),
    )
    op.create_table(
        "event_commands",
        sa.Column("stream_id", sa.Text, nullable=False),
        sa.Column("command_id", sa.Text, nullable=False),
        sa.Column("first_version", sa.BigInteger, nullable=False),
        sa.Column("last_version", sa.BigInteger, nullable=False),
        sa.Column("first_position", sa.BigInteger, nullable=False),
        sa.Column("last_position", sa.BigInteger, nullable=False),
        sa.Column("recorded_at", TIMESTAMP, nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("stream_id", "command_id", name="event_commands_pkey"),
    )
    op.create_table(
        "relay_checkpoints",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "inbox",
        sa.Column("consumer", sa.Text, nullable=False),
        sa.Column("message_id", sa.Text, nullable=False),
        sa.Column("processed_at", TIMESTAMP, nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("consumer", "message_id", name="inbox_pkey"),
    )
    # One wake-up per committed append, for subscribers and the relay (LISTEN parlor_events).
    op.execute(
        """
        CREATE FUNCTION parlor_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('parlor_events', '');
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER events_notify AFTER INSERT ON events "
        "FOR EACH STATEMENT EXECUTE FUNCTION parlor_events_notify()"
    )
    op.execute(APPEND_FUNCTION)


def downgrade() -> None:
    op.execute("DROP FUNCTION IF EXISTS parlor_append")
    op.execute("DROP TRIGGER IF EXISTS events_notify ON events")
    op.execute("DROP FUNCTION IF EXISTS parlor_events_notify()")
    for table in ("inbox", "relay_checkpoints", "event_commands", "events"):
        op.drop_table(table)
