"""The directory's tables (``parlor.directory.projection``): their schema, the advisory locks
that serialise their creation, each game type's catch-up and each player's claims, and the
statements ``Directory`` reads and writes them with; a player's ids (``ids_of``) and the
locks' keys (``hash_category``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from parlor.accounts import ACCOUNT_CATEGORY, PLAYER_PREFIX, guests_claimed

# Two-key advisory locks (class, object): a key space apart from the event store's
# one-key locks (appends, migrations, relays). Object 0 guards the tables' creation;
# otherwise one catch-up per category at a time.
DIRECTORY_LOCK_CLASS = 0x70617264  # "pard"
# One player's creations of one game type at a time (``claiming``), keyed by both.
CLAIM_LOCK_CLASS = 0x70617263  # "parc"
SCHEMA = [
    f"SELECT pg_advisory_xact_lock({DIRECTORY_LOCK_CLASS}, 0)",
    """CREATE TABLE IF NOT EXISTS game_directory (
        stream_id text PRIMARY KEY,
        category text NOT NULL,
        game_id text NOT NULL,
        players text[] NOT NULL,
        names text[] NOT NULL,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        finish_reason text,
        last_version bigint NOT NULL)""",
    """CREATE INDEX IF NOT EXISTS game_directory_by_time
        ON game_directory (category, created_at DESC, stream_id)""",
    """CREATE INDEX IF NOT EXISTS game_directory_by_player
        ON game_directory USING gin (players)""",
    # Unfinished games only (a few per player, at most the open-games cap of each type,
    # against every game ever played): a player's games in progress and the open-games
    # count read these, not every game the player finished; everyone's games in progress
    # are paged without stepping over the finished ones.
    """CREATE INDEX IF NOT EXISTS game_directory_unfinished
        ON game_directory (category, created_at DESC, stream_id DESC)
        WHERE finished_at IS NULL""",
    """CREATE INDEX IF NOT EXISTS game_directory_unfinished_by_player
        ON game_directory USING gin (players) WHERE finished_at IS NULL""",
    """CREATE TABLE IF NOT EXISTS game_directory_checkpoints (
        category text PRIMARY KEY, position bigint NOT NULL)""",
    # Games created for a player under the cap (``claiming``) that the directory may not have
    # folded yet: counted until it has (then deleted), each only once its events exist.
    """CREATE TABLE IF NOT EXISTS game_open_claims (
        category text NOT NULL,
        player_id text NOT NULL,
        stream_id text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (category, player_id, stream_id))""",
    # The players who left a game others play on (added after the table: games left before
    # it count as before, until they finish).
    # Looked up first: ALTER TABLE takes the table's exclusive lock even when the column is
    # there, and every process runs this as it starts, beside other replicas' listings.
    """DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_schema = current_schema() AND table_name = 'game_directory'
                       AND column_name = 'departed') THEN
            ALTER TABLE game_directory ADD COLUMN departed text[] NOT NULL DEFAULT '{}';
        END IF;
    END $$""",
    # A game's privacy (``parlor.admission.privacy``: added after the table; games before it
    # are public, and no one is findable in them by player id).
    """DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_schema = current_schema() AND table_name = 'game_directory'
                       AND column_name = 'findable') THEN
            ALTER TABLE game_directory ADD COLUMN private boolean NOT NULL DEFAULT false,
                ADD COLUMN findable text[] NOT NULL DEFAULT '{}';
        END IF;
    END $$""",
]

NEW = text(
    "SELECT position, stream_id, version, type, data, recorded_at, extra FROM events "
    "WHERE partition = :partition AND position > :after AND position <= :head "
    "AND type = ANY(:types) AND stream_id LIKE :prefix ORDER BY position LIMIT :limit"
)
# Each partition of the store's order that has events, with its head: found in the
# (partition, position) index one partition at a time (a loose index scan, P + 1 probes),
# so the directory follows every partition written, whatever P its process was made with.
HEADS = text(
    "WITH RECURSIVE parts(p) AS (SELECT min(partition) FROM events UNION ALL "
    "SELECT (SELECT min(e.partition) FROM events e WHERE e.partition > parts.p) FROM parts "
    "WHERE parts.p IS NOT NULL) "
    "SELECT p, (SELECT max(e.position) FROM events e WHERE e.partition = parts.p) "
    "FROM parts WHERE p IS NOT NULL ORDER BY p"
)
CHECKPOINTS = text(
    "SELECT category, position FROM game_directory_checkpoints WHERE category = ANY(:keys)"
)
LOCK = text("SELECT pg_advisory_xact_lock(CAST(:kind AS integer), CAST(:key AS integer))")
SEATED = text(
    "INSERT INTO game_directory (stream_id, category, game_id, players, names, created_at,"
    " last_version, private, findable) VALUES (:stream_id, :category, :game_id, :players,"
    " :names, :at, :version, :private, :findable) ON CONFLICT (stream_id) DO NOTHING"
)
FINISHED = text(
    "UPDATE game_directory SET finished_at = :at, finish_reason = :reason,"
    " last_version = :version WHERE stream_id = :stream_id"
)
DEPARTED = text(
    "UPDATE game_directory SET departed = array_append(departed, players[:seat])"
    " WHERE stream_id = :stream_id AND players[:seat] IS NOT NULL"
    " AND NOT departed @> ARRAY[players[:seat]]"
)
# A game the player holds: unfinished, and not one they left while another person plays on.
HOLDS = (
    "players @> ARRAY[CAST(:player AS text)] AND finished_at IS NULL"
    " AND (NOT departed @> ARRAY[CAST(:player AS text)] OR NOT EXISTS ("
    "SELECT 1 FROM unnest(players) AS seated(p) WHERE p NOT LIKE 'bot:%'"
    " AND NOT p = ANY(departed)))"
)
# The same for any of an account's ids (its player id and the guest ids it claimed).
HOLDS_ANY = (
    "finished_at IS NULL AND EXISTS (SELECT 1 FROM unnest(CAST(:players AS text[])) AS me(id)"
    " WHERE players @> ARRAY[me.id] AND (NOT departed @> ARRAY[me.id] OR NOT EXISTS ("
    "SELECT 1 FROM unnest(players) AS seated(p) WHERE p NOT LIKE 'bot:%'"
    " AND NOT p = ANY(departed))))"
)
CLAIMED_GUESTS = text(
    "SELECT type, data FROM events WHERE stream_id = :stream AND type = 'GuestClaimed'"
    " ORDER BY version"
)
OPEN_SQL = (
    "SELECT count(*) FROM (SELECT 1 FROM game_directory WHERE category = :category AND "
    + HOLDS
    + " LIMIT :limit) AS open"
)
OPEN = text(OPEN_SQL)
# Claims the directory has folded (counted there now) or whose create never committed.
SETTLED = text(
    "DELETE FROM game_open_claims c WHERE c.category = :category AND c.player_id = :player"
    " AND (EXISTS (SELECT 1 FROM game_directory d WHERE d.stream_id = c.stream_id)"
    " OR (c.claimed_at < now() - interval '10 minutes'"
    " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.stream_id = c.stream_id)))"
)
CLAIMED_SQL = (
    "SELECT count(*) FROM game_open_claims c WHERE c.category = :category"
    " AND c.player_id = :player AND c.stream_id <> :stream_id"
    " AND EXISTS (SELECT 1 FROM events e WHERE e.stream_id = c.stream_id)"
    " AND NOT EXISTS (SELECT 1 FROM game_directory d WHERE d.stream_id = c.stream_id)"
)
# Both counts in one statement, so in one snapshot: counted apart, a catch-up committing
# between them moved a game from the claims to the directory unseen by either, and a burst
# across two servers made one game past the cap.
HELD = text(f"SELECT ({OPEN_SQL}) + ({CLAIMED_SQL})")
CLAIM = text(
    "INSERT INTO game_open_claims (category, player_id, stream_id)"
    " VALUES (:category, :player, :stream_id) ON CONFLICT DO NOTHING"
)
CHECKPOINT = text(
    "INSERT INTO game_directory_checkpoints (category, position) VALUES (:category, :position)"
    " ON CONFLICT (category) DO UPDATE SET position = GREATEST("
    "game_directory_checkpoints.position, EXCLUDED.position)"
)


async def ids_of(conn: Any, player_id: str) -> list[str]:
    """``player_id`` and, for an account, the guest ids it claimed (its stream's
    ``GuestClaimed`` events, ``parlor.accounts``): one indexed read of a short stream."""
    if not player_id.startswith(PLAYER_PREFIX):
        return [player_id]
    rows = await conn.execute(CLAIMED_GUESTS, {"stream": f"{ACCOUNT_CATEGORY}-{player_id}"})
    return [player_id, *guests_claimed((kind, bytes(data)) for kind, data in rows)]


def hash_category(category: str) -> int:
    """A stable number 1..2**31-1 per category (Python's ``hash`` is salted per process)."""
    value = 0
    for ch in category:
        value = (value * 131 + ord(ch)) % 2_147_483_647
    return value or 1
