"""The tables, as SQLAlchemy Core sees them (Alembic migrations create them)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Identity,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB

metadata = MetaData()

NOTIFY_CHANNEL = "parlor_events"
"""Every committed append notifies this channel (``doorbell.Ringer``, after the commit)."""

APPEND_LOCK = 0x7061726C_6F72_01  # "parlor" + 1: serialises appends (see postgres.py)
MIGRATE_LOCK = 0x7061726C_6F72_02  # serialises concurrent migrators

events = Table(
    "events",
    metadata,
    Column("position", BigInteger, Identity(always=True), primary_key=True),
    Column("stream_id", Text, nullable=False),
    Column("version", BigInteger, nullable=False),
    Column("type", Text, nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("command_id", Text),
    Column("actor", Text),
    Column("causation_id", Text),
    Column("correlation_id", Text),
    Column("extra", JSONB),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    # the stream's partition of the global order (revision 0009; see partitions.py)
    Column("partition", SmallInteger, nullable=False, server_default=text("0")),
    UniqueConstraint("stream_id", "version", name="events_stream_version_key"),
    Index("events_partition_position", "partition", "position"),
)

commands = Table(
    "event_commands",
    metadata,
    Column("stream_id", Text, nullable=False),
    Column("command_id", Text, nullable=False),
    Column("first_version", BigInteger, nullable=False),
    Column("last_version", BigInteger, nullable=False),
    Column("first_position", BigInteger, nullable=False),
    Column("last_position", BigInteger, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    Column("fingerprint", Text),
    PrimaryKeyConstraint("stream_id", "command_id", name="event_commands_pkey"),
)

relay_checkpoints = Table(
    "relay_checkpoints",
    metadata,
    Column("name", Text, primary_key=True),
    Column("position", BigInteger, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("published_position", BigInteger, nullable=False),
    Column("stream_created", Text),
    Column("verified_position", BigInteger, nullable=False),
)

relay_leases = Table(
    "relay_leases",
    metadata,
    Column("name", Text, primary_key=True),
    Column("holder", Text, nullable=False),
    Column("token", BigInteger, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

relay_members = Table(
    "relay_members",
    metadata,
    Column("relay", Text, nullable=False),
    Column("holder", Text, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("relay", "holder", name="relay_members_pkey"),
)

relay_dead_letters = Table(
    "relay_dead_letters",
    metadata,
    Column("name", Text, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("stream_id", Text, nullable=False),
    Column("version", BigInteger, nullable=False),
    Column("type", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("reason", Text, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("name", "position", name="relay_dead_letters_pkey"),
)

inbox = Table(
    "inbox",
    metadata,
    Column("consumer", Text, nullable=False),
    Column("message_id", Text, nullable=False),
    Column("processed_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("consumer", "message_id", name="inbox_pkey"),
)

snapshots = Table(
    "snapshots",
    metadata,
    Column("stream_id", Text, primary_key=True),
    Column("version", BigInteger, nullable=False),
    Column("type", Text, nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
)

game_deadlines = Table(
    "game_deadlines",
    metadata,
    Column("category", Text, nullable=False),
    Column("game_id", Text, nullable=False),
    Column("deadline", DateTime(timezone=True), nullable=True),  # NULL: nothing to time
    Column("version", BigInteger, nullable=False),
    PrimaryKeyConstraint("category", "game_id", name="game_deadlines_pkey"),
    Index(
        "game_deadlines_due",
        "category",
        "deadline",
        postgresql_where=text("deadline IS NOT NULL"),
    ),
)

game_deadline_marks = Table(
    "game_deadline_marks",
    metadata,
    Column("category", Text, primary_key=True),
    Column("position", BigInteger, nullable=False),  # every game's note known up to here
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
