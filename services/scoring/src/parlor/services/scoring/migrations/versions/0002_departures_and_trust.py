"""Why each seat left, and what ratings need to weigh who a result was against.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-07

``scoring_results`` keeps each seat's ``timed_out`` and ``departure`` from ``GameFinished``
(the scoresheet showed neither) and the moves it made (null: not known, an untimed game).
``scoring_ratings`` keeps how many distinct people a player met (``opponents``) and whether
the rating is ``provisional``; ``scoring_pairs`` when two players last met. Ratings scored
before this revision were folded without those weights: ``parlor-scoring-rebuild`` refolds
them (until then every row is provisional, so leaderboards are empty).
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "ALTER TABLE scoring_results ADD COLUMN IF NOT EXISTS timed_out boolean NOT NULL"
        " DEFAULT false, ADD COLUMN IF NOT EXISTS departure text NOT NULL DEFAULT '',"
        " ADD COLUMN IF NOT EXISTS moves integer"
    )
    op.execute(
        "ALTER TABLE scoring_ratings ADD COLUMN IF NOT EXISTS opponents integer NOT NULL"
        " DEFAULT 0, ADD COLUMN IF NOT EXISTS provisional boolean NOT NULL DEFAULT true"
    )
    op.execute(
        """
        CREATE TABLE IF NOT EXISTS scoring_pairs (
            game_type text NOT NULL,
            player_a text NOT NULL,
            player_b text NOT NULL,
            games integer NOT NULL,
            recent timestamptz[] NOT NULL,
            PRIMARY KEY (game_type, player_a, player_b)
        )
        """
    )
    op.execute("DROP INDEX IF EXISTS scoring_ratings_board")
    op.execute(
        "CREATE INDEX scoring_ratings_board ON scoring_ratings"
        " (game_type, conservative DESC, player_id) WHERE rated AND NOT provisional"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS scoring_ratings_board")
    op.execute(
        "CREATE INDEX scoring_ratings_board ON scoring_ratings"
        " (game_type, conservative DESC, player_id) WHERE rated"
    )
    op.execute("DROP TABLE IF EXISTS scoring_pairs")
    op.execute("ALTER TABLE scoring_ratings DROP COLUMN opponents, DROP COLUMN provisional")
    op.execute(
        "ALTER TABLE scoring_results DROP COLUMN timed_out, DROP COLUMN departure,"
        " DROP COLUMN moves"
    )
