"""The global order split into partitions: one append lock and one order per partition.

Every event gets the partition of its stream (``events.partition``, 0 for every event
stored before, so a store of one partition reads as it did), and an index orders each
partition by position. ``parlor_append`` gains an overload whose first argument is the
batch's partition: it takes that partition's lock (partition 0 takes the lock of
revision 0001, so processes of the release before, which still call the old function
and write partition 0, share it during a rolling upgrade) and refuses, with the outcome
``moved`` and the stream's partition, an append to a stream that lives in another
partition (its first event fixed it; the number of partitions changed since), so no
partition's order is ever written under another's lock. Within a partition positions
are taken under its lock and so increase in commit order, and a reader of
``partition = p AND position > cursor`` skips nothing; across partitions they
interleave. The pair-key lock (1885434484 is "part") lives in a key space of its own,
apart from the single-key append and migration locks.

The index is built in the migration's transaction, holding off appends while it is
built; on a large table an operator builds it first with
``CREATE INDEX CONCURRENTLY events_partition_position ON events (partition, position)``
and the migration finds it there.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

APPEND_FUNCTION = """
CREATE FUNCTION parlor_append(
    p_partition smallint,
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
    v_partition smallint;
BEGIN
    IF p_partition = 0 THEN
        PERFORM pg_advisory_xact_lock(31632341465002497);
    ELSE
        PERFORM pg_advisory_xact_lock(1885434484, p_partition);
    END IF;
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
        SELECT e.version, e.partition INTO v_current, v_partition
          FROM events e WHERE e.stream_id = v_stream
         ORDER BY e.version DESC LIMIT 1;
        IF NOT FOUND THEN
            v_current := 0;
        ELSIF v_partition <> p_partition THEN
            -- the stream lives in another partition (P changed since its first event):
            -- written under this lock it would break that partition's order
            r_outcome := 'moved';
            r_last_version := v_partition;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF p_expected[i] <> -1 AND v_current <> p_expected[i] THEN
            r_outcome := 'conflict';
            r_last_version := v_current;
            RETURN NEXT;
            CONTINUE;
        END IF;
        WITH written AS (
            INSERT INTO events (stream_id, version, type, schema_version, data, command_id,
                                actor, causation_id, correlation_id, extra, recorded_at,
                                partition)
            SELECT v_stream, v_current + n.event_offset, n.type, n.schema_version, n.data,
                   v_command, n.actor, n.causation_id, n.correlation_id, n.extra, now(),
                   p_partition
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
    op.execute("ALTER TABLE events ADD COLUMN IF NOT EXISTS partition smallint NOT NULL DEFAULT 0")
    op.execute(
        "CREATE INDEX IF NOT EXISTS events_partition_position ON events (partition, position)"
    )
    op.execute(APPEND_FUNCTION)


def downgrade() -> None:
    op.execute(
        "DROP FUNCTION parlor_append(smallint, text[], bigint[], text[], integer[],"
        " integer[], text[], integer[], bytea[], text[], text[], text[], jsonb[], text[])"
    )
    op.execute("DROP INDEX IF EXISTS events_partition_position")
    op.execute("ALTER TABLE events DROP COLUMN partition")
