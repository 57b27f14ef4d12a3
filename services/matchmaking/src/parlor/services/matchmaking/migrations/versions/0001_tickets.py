"""Tickets, matches and lobbies.

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

STATUSES = "('waiting', 'matched', 'cancelled', 'expired', 'withdrawn')"


def upgrade() -> None:
    op.execute(
        f"""
        CREATE TABLE mm_tickets (
            ticket_id text PRIMARY KEY,
            player_id text NOT NULL,
            display_name text NOT NULL,
            game_type text NOT NULL,
            min_players integer NOT NULL,
            max_players integer NOT NULL,
            rating double precision NOT NULL,
            lobby text,
            status text NOT NULL DEFAULT 'waiting' CHECK (status IN {STATUSES}),
            created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
            closed_at timestamptz,
            match_id text,
            seat integer,
            CHECK (2 <= min_players AND min_players <= max_players),
            CHECK ((status = 'matched') = (match_id IS NOT NULL))
        )
        """
    )
    # One waiting ticket per player: a player's tickets can never be split between two
    # replicas' rounds, so no player is seated twice.
    op.execute(
        "CREATE UNIQUE INDEX mm_tickets_one_waiting_per_player "
        "ON mm_tickets (player_id) WHERE status = 'waiting'"
    )
    op.execute(
        "CREATE INDEX mm_tickets_waiting ON mm_tickets (game_type, created_at, ticket_id) "
        "WHERE status = 'waiting'"
    )
    op.execute(
        """
        CREATE TABLE mm_matches (
            match_id text PRIMARY KEY,
            game_type text NOT NULL,
            lobby text,
            seats jsonb NOT NULL,
            formed_at timestamptz NOT NULL
        )
        """
    )
    # Each human seat once: a ticket sits in at most one match, a player once per match.
    op.execute(
        """
        CREATE TABLE mm_match_players (
            match_id text NOT NULL REFERENCES mm_matches (match_id),
            seat integer NOT NULL,
            player_id text NOT NULL,
            ticket_id text NOT NULL UNIQUE REFERENCES mm_tickets (ticket_id),
            PRIMARY KEY (match_id, seat),
            UNIQUE (match_id, player_id)
        )
        """
    )
    op.execute(
        """
        CREATE TABLE mm_lobbies (
            code text PRIMARY KEY,
            game_type text NOT NULL,
            min_players integer NOT NULL,
            max_players integer NOT NULL,
            host_player_id text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
            match_id text
        )
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE mm_lobbies, mm_match_players, mm_matches, mm_tickets")
