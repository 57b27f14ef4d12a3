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

# Appends in one round trip. ``parlor_append`` takes a batch of appends (one per
# request: stream, expected version, command id; events tagged with their request
# and their offset in it) and returns one outcome per request, so a process can
# commit the appends of several concurrent writers with one WAL flush. Appends are
# serialised by a transaction-level advisory lock taken first, so global positions
# are handed out in commit order and a reader following positions never skips an
# event that commits late. Every statement after the lock runs with a fresh
# snapshot (READ COMMITTED) and sees every append committed before, and the
# requests of one batch see each other in order. The lock key is
# parlor.eventstore.schema.APPEND_LOCK.
APPEND_FUNCTION = """
CREATE FUNCTION parlor_append(
    p_stream_ids text[],
    p_expected bigint[],
    p_command_ids text[],
    p_requests integer[],
    p_offsets integer[],
    p_types text[],
    p_schema_versions integer[],
    p_data bytea[],
    p_actors text[],
    p_causation_ids text[],
    p_correlation_ids text[],
    p_extras jsonb[]
) RETURNS TABLE (
    r_request integer,
    r_outcome text,
    r_first_version bigint,
    r_last_version bigint,
    r_first_position bigint,
    r_last_position bigint
) LANGUAGE plpgsql AS $$
DECLARE
    v_current bigint;
    v_stream text;
    v_command text;
BEGIN
    PERFORM pg_advisory_xact_lock(31632341465002497);
    FOR i IN 1 .. coalesce(array_length(p_stream_ids, 1), 0) LOOP
        r_request := i;
        v_stream := p_stream_ids[i];
        v_command := p_command_ids[i];
        r_first_version := NULL;
        r_last_version := NULL;
        r_first_position := NULL;
        r_last_position := NULL;
        IF v_command IS NOT NULL THEN
            SELECT c.first_version, c.last_version, c.first_position, c.last_position
              INTO r_first_version, r_last_version, r_first_position, r_last_position
              FROM event_commands c
             WHERE c.stream_id = v_stream AND c.command_id = v_command;
            IF FOUND THEN
                r_outcome := 'duplicate';
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;
        SELECT coalesce(max(e.version), 0) INTO v_current
          FROM events e WHERE e.stream_id = v_stream;
        IF p_expected[i] <> -1 AND v_current <> p_expected[i] THEN
            r_outcome := 'conflict';
            r_last_version := v_current;
            RETURN NEXT;
            CONTINUE;
        END IF;
        WITH written AS (
            INSERT INTO events (stream_id, version, type, schema_version, data, command_id,
                                actor, causation_id, correlation_id, extra, recorded_at)
            SELECT v_stream, v_current + n.event_offset, n.type, n.schema_version, n.data,
                   v_command, n.actor, n.causation_id, n.correlation_id, n.extra, now()
              FROM unnest(p_requests, p_offsets, p_types, p_schema_versions, p_data,
                          p_actors, p_causation_ids, p_correlation_ids, p_extras)
                   AS n(request, event_offset, type, schema_version, data, actor,
                        causation_id, correlation_id, extra)
             WHERE n.request = i
             ORDER BY n.event_offset
            RETURNING version, position
        )
        SELECT min(w.version), max(w.version), min(w.position), max(w.position)
          INTO r_first_version, r_last_version, r_first_position, r_last_position
          FROM written w;
        IF v_command IS NOT NULL THEN
            INSERT INTO event_commands (stream_id, command_id, first_version, last_version,
                                        first_position, last_position, recorded_at)
            VALUES (v_stream, v_command, r_first_version, r_last_version,
                    r_first_position, r_last_position, now());
        END IF;
        r_outcome := 'appended';
        RETURN NEXT;
    END LOOP;
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
    # (Dropped by 0008: the store rings after the commit.)
    for statement in NOTIFY_TRIGGER:
        op.execute(statement)
    op.execute(APPEND_FUNCTION)


NOTIFY_TRIGGER = (
    """
    CREATE FUNCTION parlor_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify('parlor_events', '');
        RETURN NULL;
    END
    $$
    """,
    "CREATE TRIGGER events_notify AFTER INSERT ON events "
    "FOR EACH STATEMENT EXECUTE FUNCTION parlor_events_notify()",
)


def downgrade() -> None:
    op.execute("DROP FUNCTION IF EXISTS parlor_append")
    op.execute("DROP TRIGGER IF EXISTS events_notify ON events")
    op.execute("DROP FUNCTION IF EXISTS parlor_events_notify()")
    for table in ("inbox", "relay_checkpoints", "event_commands", "events"):
        op.drop_table(table)
