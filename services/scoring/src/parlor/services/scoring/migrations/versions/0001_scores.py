"""Scoresheets and ratings.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    # One row per finished game; position is the GameFinished event's global position,
    # the order every fold (live or rebuild) applies games in.
    op.execute(
        """
        CREATE TABLE scoring_games (
            stream_id text PRIMARY KEY,
            game_type text NOT NULL,
            game_id text NOT NULL,
            position bigint NOT NULL UNIQUE,
            finished_at timestamptz NOT NULL,
            reason text NOT NULL
        )
        """
    )
    op.execute("CREATE INDEX scoring_games_by_type ON scoring_games (game_type, position)")
    op.execute(
        """
        CREATE TABLE scoring_results (
            stream_id text NOT NULL REFERENCES scoring_games (stream_id) ON DELETE CASCADE,
            seat integer NOT NULL,
            player_id text NOT NULL,
            display_name text NOT NULL,
            rank integer NOT NULL,
            score bigint NOT NULL,
            PRIMARY KEY (stream_id, seat)
        )
        """
    )
    op.execute("CREATE INDEX scoring_results_by_player ON scoring_results (player_id)")
    # Ratings and records per game type. Matchmaking reads (game_type, player_id, rating).
    op.execute(
        """
        CREATE TABLE scoring_ratings (
            game_type text NOT NULL,
            player_id text NOT NULL,
            rating double precision NOT NULL,
            rd double precision NOT NULL,
            volatility double precision NOT NULL,
            conservative double precision NOT NULL,
            rated boolean NOT NULL,
            games integer NOT NULL,
            wins integer NOT NULL,
            draws integer NOT NULL,
            losses integer NOT NULL,
            total_score bigint NOT NULL,
            last_played timestamptz NOT NULL,
            PRIMARY KEY (game_type, player_id)
        )
        """
    )
    op.execute(
        "CREATE INDEX scoring_ratings_board ON scoring_ratings"
        " (game_type, conservative DESC, player_id) WHERE rated"
    )


def downgrade() -> None:
    op.execute("DROP TABLE scoring_ratings, scoring_results, scoring_games")
