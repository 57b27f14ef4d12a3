"""Command fingerprints: a reused command id with a different command is told apart.

Each command id is stored with a fingerprint (a hash of the canonical command: the
method and its request, made by the service kit). ``parlor_append`` gets one more
array, the fingerprints; an append whose command id is known with another
fingerprint answers ``reused`` and writes nothing, as payment APIs treat an
idempotency key sent again with other parameters. Ids stored before this revision
have no fingerprint and keep answering ``duplicate``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

OLD_SIGNATURE = (
    "parlor_append(text[], bigint[], text[], integer[], integer[], text[], integer[], bytea[],"
    " text[], text[], text[], jsonb[])"
)

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
    p_extras jsonb[],
    p_fingerprints text[]
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
    v_fingerprint text;
    v_stored text;
BEGIN
    PERFORM pg_advisory_xact_lock(31632341465002497);
    FOR i IN 1 .. coalesce(array_length(p_stream_ids, 1), 0) LOOP
        r_request := i;
        v_stream := p_stream_ids[i];
        v_command := p_command_ids[i];
        v_fingerprint := p_fingerprints[i];
        r_first_version := NULL;
        r_last_version := NULL;
        r_first_position := NULL;
        r_last_position := NULL;
        IF v_command IS NOT NULL THEN
            SELECT c.first_version, c.last_version, c.first_position, c.last_position,
                   c.fingerprint
              INTO r_first_version, r_last_version, r_first_position, r_last_position, v_stored
              FROM event_commands c
             WHERE c.stream_id = v_stream AND c.command_id = v_command;
            IF FOUND THEN
                IF v_fingerprint IS NOT NULL AND v_stored IS NOT NULL
                   AND v_fingerprint <> v_stored THEN
                    r_outcome := 'reused';
                ELSE
                    r_outcome := 'duplicate';
                END IF;
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
                                        first_position, last_position, recorded_at,
                                        fingerprint)
            VALUES (v_stream, v_command, r_first_version, r_last_version,
                    r_first_position, r_last_position, now(), v_fingerprint);
        END IF;
        r_outcome := 'appended';
        RETURN NEXT;
    END LOOP;
END
$$
"""


def upgrade() -> None:
    op.add_column("event_commands", sa.Column("fingerprint", sa.Text))
    op.execute(f"DROP FUNCTION {OLD_SIGNATURE}")
    op.execute(APPEND_FUNCTION)


def downgrade() -> None:
    op.execute("DROP FUNCTION parlor_append")
    op.drop_column("event_commands", "fingerprint")
    spec = importlib.util.spec_from_file_location(
        "events_0001", Path(__file__).with_name("0001_events.py")
    )
    assert spec is not None
    assert spec.loader is not None
    first = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(first)
    op.execute(first.APPEND_FUNCTION)
