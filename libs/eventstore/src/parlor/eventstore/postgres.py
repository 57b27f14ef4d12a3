"""The event store on PostgreSQL: SQLAlchemy Core over psycopg 3 (async), one events table.

Global order without holes: every append runs ``parlor_append`` (see the first
migration), which takes a transaction-level advisory lock before it touches
the table. Appends are therefore serialised, positions are handed out in
commit order, and a reader that follows positions never skips an event that
commits late. The lock is held for one round trip and the commit; readers never
take it. Writes that bypass ``append`` would break this promise: don't.
Concurrent appends of this process share that round trip and commit (group_commit).
The doorbell is rung after the commit, not inside it (``doorbell.Ringer``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any, NoReturn

import psycopg
from psycopg_pool import PoolTimeout
from sqlalchemy import BigInteger, bindparam, func, literal_column, select
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.ext.asyncio import AsyncConnection

from parlor.core.errors import Conflict, InvalidArgument, Unavailable, translate_with
from parlor.eventstore.doorbell import Doorbell, Ringer
from parlor.eventstore.events import (
    DEFAULT_MAX_EVENT_BYTES,
    NO_METADATA,
    AppendResult,
    EventLimit,
    EventSizeLimited,
    Metadata,
    NewEvent,
    RecordedEvent,
    Snapshot,
    check_event_size,
    check_event_type,
    check_expected_version,
    check_stream_id,
    command_id_reused,
    stored_events,
)
from parlor.eventstore.group_commit import (
    APPEND_SQL,
    AppendRequest,
    GroupCommit,
    batch_params,
    outcomes,
)
from parlor.eventstore.partitions import check_partitions, partition_of
from parlor.eventstore.pools import Pools
from parlor.eventstore.schema import NOTIFY_CHANNEL, events, snapshots
from parlor.eventstore.tracing import traced_append
from parlor.eventstore.upcasting import Upcasters

log = logging.getLogger(__name__)

_NO_END = 2**62

_COMMAND_RESULT = (
    "SELECT first_version, last_version, first_position, last_position, fingerprint "
    "FROM event_commands "
    "WHERE stream_id = %(stream_id)s AND command_id = %(command_id)s"
)

_COLUMNS = (
    events.c.stream_id,
    events.c.version,
    events.c.position,
    events.c.type,
    events.c.data,
    events.c.schema_version,
    events.c.command_id,
    events.c.actor,
    events.c.causation_id,
    events.c.correlation_id,
    events.c.extra,
    events.c.recorded_at,
)

_DIALECT = PGDialect_psycopg()  # type: ignore[no-untyped-call]


def _compiled(query: Any) -> str:
    """Core query -> driver SQL with ``%(name)s`` parameters, compiled once at import."""
    return str(query.compile(dialect=_DIALECT))


_READ_STREAM = _compiled(
    select(*_COLUMNS)
    .where(
        events.c.stream_id == bindparam("stream_id"),
        events.c.version >= bindparam("from_version"),
        events.c.version <= bindparam("to_version"),
    )
    .order_by(events.c.version)
)
_READ_ALL = _compiled(
    select(*_COLUMNS)
    .where(events.c.position >= bindparam("from_position"))
    .order_by(events.c.position)
    .limit(bindparam("limit", type_=BigInteger))
)
_STREAM_VERSION = _compiled(
    select(func.coalesce(func.max(events.c.version), literal_column("0"))).where(
        events.c.stream_id == bindparam("stream_id")
    )
)

# A range of positions (the primary key), the category as the relay's lanes read it; one
# row per stream, not per event.
_STREAMS_TOUCHED = (
    "SELECT stream_id FROM events WHERE position > %(after)s::bigint"
    " AND position <= %(through)s::bigint AND split_part(stream_id, '-', 1) = %(category)s"
    " GROUP BY stream_id ORDER BY min(position)"
)

_NOTIFY = f"SELECT pg_notify('{NOTIFY_CHANNEL}', '')"
_HEAD_POSITION = _compiled(select(func.coalesce(func.max(events.c.position), literal_column("0"))))

# One partition's order: the (partition, position) index, read forward from a cursor.
_READ_PARTITION = _compiled(
    select(*_COLUMNS)
    .where(
        events.c.partition == bindparam("partition"),
        events.c.position >= bindparam("from_position"),
    )
    .order_by(events.c.position)
    .limit(bindparam("limit", type_=BigInteger))
)
# Each partition's last position, one index probe a partition (no scan of the table).
_HEAD_POSITIONS = (
    "SELECT p, coalesce((SELECT max(position) FROM events WHERE partition = p), 0)"
    " FROM generate_series(0, %(partitions)s::integer - 1) AS p ORDER BY p"
)
_PARTITION_TOUCHED = (
    "SELECT stream_id FROM events WHERE partition = %(partition)s::smallint"
    " AND position > %(after)s::bigint AND position <= %(through)s::bigint"
    " AND split_part(stream_id, '-', 1) = %(category)s"
    " GROUP BY stream_id ORDER BY min(position)"
)
_HOMES_KEPT = 65_536
_SAVE_SNAPSHOT = (
    "INSERT INTO snapshots (stream_id, version, type, schema_version, data, recorded_at) "
    "VALUES (%(stream_id)s, %(version)s, %(type)s, %(schema_version)s, %(data)s, now()) "
    "ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, type = excluded.type, "
    "schema_version = excluded.schema_version, data = excluded.data, "
    "recorded_at = excluded.recorded_at WHERE snapshots.version < excluded.version "
    "RETURNING version"
)
_LOAD_SNAPSHOT = _compiled(
    select(
        snapshots.c.stream_id,
        snapshots.c.version,
        snapshots.c.type,
        snapshots.c.data,
        snapshots.c.schema_version,
    ).where(snapshots.c.stream_id == bindparam("stream_id"))
)


def unavailable(exc: BaseException) -> NoReturn:
    """Turn a lost or refused database connection into the retriable ``Unavailable``."""
    raise Unavailable(
        f"the event store database is unavailable ({type(exc).__name__})",
        reason="DATABASE_UNAVAILABLE",
    ) from exc


def is_retriable(exc: BaseException) -> bool:
    """Connection lost, refused, pool exhausted: the caller may try again."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(
        exc,
        sa_exc.OperationalError
        | sa_exc.InterfaceError
        | sa_exc.TimeoutError
        | psycopg.OperationalError
        | psycopg.InterfaceError
        | OSError,
    )


@translate_with
def _database_unavailable(exc: BaseException) -> Unavailable | None:
    """A lost, refused or exhausted database connection met outside the store's own calls
    (a service's own tables): told as the store tells it, ``UNAVAILABLE``."""
    if isinstance(exc, OSError) or not is_retriable(exc):
        return None  # (a bare OSError may be any connection's, not the database's)
    return Unavailable(
        f"the database is unavailable ({type(exc).__name__})", reason="DATABASE_UNAVAILABLE"
    )


class PostgresEventStore(EventSizeLimited):
    """``EventStore`` on PostgreSQL; build with ``PostgresEventStore(url)``, ``close()`` at exit."""

    appends = 0
    """Appends asked of this store; ``conflicts``: those refused for the expected version."""
    conflicts = 0

    def __init__(
        self,
        url: str,
        *,
        upcasters: Upcasters | None = None,
        pool_size: int = 10,
        max_overflow: int = 10,
        pool_timeout: float = 5.0,
        poll_interval: float = 1.0,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        pools: Pools | None = None,
        partitions: int = 1,
    ) -> None:
        self.url = url
        self.partitions = check_partitions(partitions)
        """P: how many orders the global order is split into (``partitions``)."""
        # The largest event appended: the bus's max payload (``limit_events_to`` on connect).
        self._limit = EventLimit(max_event_bytes)
        # Store calls are one statement each, on autocommit connections of the psycopg pool;
        # ``engine`` is SQLAlchemy's, for transactions that join an append. A service's
        # stores share their process's ``pools`` (``process_pools``: one connection budget
        # for the process); a store made without them keeps pools of its own.
        self._owns_pools = pools is None
        self.pools = pools or Pools(
            url,
            statements=pool_size,
            transactions=pool_size,
            overflow=max_overflow,
            timeout=pool_timeout,
            engine_timeout=10.0,
        )
        self._group_commits = {0: GroupCommit(self._fetch)}
        # streams found living in another partition than their hash says (P changed)
        self._homes: dict[str, int] = {}
        self.ringer = Ringer(self.pools.fetch)
        """Rings the doorbell once an append has committed (see ``doorbell``)."""
        self.engine = self.pools.engine
        self.upcasters = upcasters or Upcasters()
        self.poll_interval = poll_interval

    async def close(self) -> None:
        for group_commit in list(self._group_commits.values()):
            await group_commit.close()
        await self.ringer.close()
        if self._owns_pools:
            await self.pools.close()

    async def __aenter__(self) -> PostgresEventStore:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def _fetch(self, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """One prepared statement on a pooled autocommit connection; binary rows as tuples."""
        try:
            return await self.pools.fetch(sql, params)
        except (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout, OSError) as exc:
            unavailable(exc)

    fetch = _fetch
    """A statement of the caller's (the relay's monitoring) on the store's pool."""

    @traced_append
    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        command_id: str | None = None,
        *,
        fingerprint: str | None = None,
        connection: AsyncConnection | None = None,
    ) -> AppendResult:
        """Append (see ``EventStore.append``); ``connection`` joins the caller's transaction."""
        request = _append_request(
            stream_id, events, expected_version, command_id, self.max_event_bytes, fingerprint
        )
        partition = self._homes.get(stream_id)
        if partition is None:
            partition = partition_of(stream_id, self.partitions)
        try:
            for _ in range(2):
                if connection is not None:
                    rows = await _driver_fetch(
                        connection, APPEND_SQL, batch_params([request], partition)
                    )
                    outcome = outcomes(rows)[1]
                else:
                    outcome = await self._group_commit(partition).submit(request)
                if outcome[0] != "moved":
                    break
                partition = self._remember_home(stream_id, int(outcome[2]))
            if outcome[0] == "appended":
                if connection is not None:
                    # rung when the caller's transaction commits, as the caller decides
                    await _driver_fetch(connection, _NOTIFY, {})
                else:
                    self.ringer.ring()  # committed: followers may read it now
        except psycopg.errors.UniqueViolation as exc:
            # Only reachable if something wrote to ``events`` without the append lock.
            raise Conflict(
                f"stream {stream_id}: a concurrent writer appended first",
                reason="WRONG_EXPECTED_VERSION",
                metadata={"stream_id": stream_id},
            ) from exc
        return _append_result(request, outcome)

    def _group_commit(self, partition: int) -> GroupCommit:
        found = self._group_commits.get(partition)
        if found is None:
            found = self._group_commits[partition] = GroupCommit(self._fetch, partition=partition)
        return found

    def _remember_home(self, stream_id: str, partition: int) -> int:
        """A stream's events live in ``partition`` (its first event's), whatever P says now."""
        if len(self._homes) >= _HOMES_KEPT:
            self._homes.clear()  # asked again of the database, one ``moved`` each
        self._homes[stream_id] = partition
        return partition

    async def read_stream(
        self, stream_id: str, from_version: int = 0, to_version: int | None = None
    ) -> list[RecordedEvent]:
        rows = await self._fetch(
            _READ_STREAM,
            {
                "stream_id": stream_id,
                "from_version": from_version,
                "to_version": _NO_END if to_version is None else to_version,
            },
        )
        return self._recorded(rows)

    async def stream_version(self, stream_id: str) -> int:
        rows = await self._fetch(_STREAM_VERSION, {"stream_id": stream_id})
        return int(rows[0][0])

    async def command_result(self, stream_id: str, command_id: str) -> AppendResult | None:
        """What an already applied command appended (marked ``duplicate``), or None."""
        rows = await self._fetch(
            _COMMAND_RESULT, {"stream_id": stream_id, "command_id": command_id}
        )
        if not rows:
            return None
        first_version, last_version, first_position, last_position, fingerprint = rows[0]
        return AppendResult(
            stream_id=stream_id,
            first_version=first_version,
            last_version=last_version,
            first_position=first_position,
            last_position=last_position,
            duplicate=True,
            fingerprint=fingerprint,
        )

    async def read_all(self, from_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        rows = await self._fetch(_READ_ALL, {"from_position": from_position, "limit": limit})
        return self._recorded(rows)

    async def save_snapshot(self, snapshot: Snapshot) -> None:
        check_stream_id(snapshot.stream_id)
        await self._fetch(_SAVE_SNAPSHOT, dataclasses.asdict(snapshot))

    async def load_snapshot(self, stream_id: str) -> Snapshot | None:
        rows = await self._fetch(_LOAD_SNAPSHOT, {"stream_id": stream_id})
        return Snapshot(*rows[0]) if rows else None

    async def head_position(self) -> int:
        """The position of the last committed event (0 for an empty store)."""
        rows = await self._fetch(_HEAD_POSITION, {})
        return int(rows[0][0])

    async def streams_touched(
        self, category: str, after: int, through: int, partition: int | None = None
    ) -> list[str]:
        """Streams of ``category`` with events in (after, through]: of the global order,
        or of one partition's when ``partition`` is given."""
        params: dict[str, Any] = {"category": category, "after": after, "through": through}
        if partition is None:
            rows = await self._fetch(_STREAMS_TOUCHED, params)
        else:
            rows = await self._fetch(_PARTITION_TOUCHED, {**params, "partition": partition})
        return [row[0] for row in rows]

    async def read_partition(
        self, partition: int, from_position: int = 0, limit: int = 1000
    ) -> list[RecordedEvent]:
        """One partition's events in its order, from ``from_position`` on: gap-free, as
        ``read_all`` is when P = 1 (partition 0 then holds every event)."""
        rows = await self._fetch(
            _READ_PARTITION,
            {"partition": partition, "from_position": from_position, "limit": limit},
        )
        return self._recorded(rows)

    async def head_positions(self) -> tuple[int, ...]:
        """Each partition's last position (0 for an empty one), partition 0 first."""
        rows = await self._fetch(_HEAD_POSITIONS, {"partitions": self.partitions})
        return tuple(int(row[1]) for row in rows)

    async def subscribe_all(
        self, from_position: int = 0, batch_size: int = 500
    ) -> AsyncIterator[RecordedEvent]:
        """Follow the global order; survives database restarts (retrying every second)."""
        position = from_position
        while True:
            try:
                async with Doorbell(self.url) as bell:
                    while True:
                        bell.clear()
                        batch = await self.read_all(position, batch_size)
                        for event in batch:
                            yield event
                            position = event.position + 1
                        if len(batch) < batch_size:
                            await bell.wait(self.poll_interval)
            except (Unavailable, ConnectionError, psycopg.Error) as exc:
                log.warning("subscription lost the database (%s); retrying", exc)
                await asyncio.sleep(1.0)

    def _recorded(self, rows: list[tuple[Any, ...]]) -> list[RecordedEvent]:
        recorded = rows_to_events(rows)
        if self.upcasters:
            return [self.upcasters.upcast(event) for event in recorded]
        return recorded


async def _driver_fetch(
    conn: AsyncConnection, sql: str, params: dict[str, Any]
) -> list[tuple[Any, ...]]:
    """Run on the caller's SQLAlchemy connection, inside its transaction."""
    raw = await conn.get_raw_connection()
    driver = raw.driver_connection
    assert isinstance(driver, psycopg.AsyncConnection)
    try:
        async with driver.cursor(binary=True) as cursor:
            await cursor.execute(sql, params, prepare=True)
            return await cursor.fetchall()
    except (psycopg.OperationalError, psycopg.InterfaceError):
        # SQLAlchemy did not see this error: drop the connection from the pool ourselves.
        await conn.invalidate()
        raise


def rows_to_events(rows: list[tuple[Any, ...]]) -> list[RecordedEvent]:
    """Rows in ``_COLUMNS`` order -> events; one loop, no call per row (reads are hot)."""
    recorded: list[RecordedEvent] = []
    append = recorded.append
    for (
        stream_id,
        version,
        position,
        type_,
        data,
        schema_version,
        command_id,
        actor,
        causation_id,
        correlation_id,
        extra,
        recorded_at,
    ) in rows:
        if (
            command_id is None
            and actor is None
            and causation_id is None
            and correlation_id is None
            and extra is None
        ):
            metadata = NO_METADATA
        else:
            metadata = Metadata(command_id, actor, causation_id, correlation_id, extra or {})
        append(
            RecordedEvent(
                stream_id, version, position, type_, data, schema_version, metadata, recorded_at
            )
        )
    return recorded


def effective_command_id(events: Sequence[NewEvent], command_id: str | None) -> str | None:
    """The command id is given once: as the argument or in the events' metadata."""
    ids = {e.metadata.command_id for e in events} - {None}
    if command_id is not None:
        ids.add(command_id)
    if len(ids) > 1:
        raise InvalidArgument(
            "one append carries one command id; got several", reason="INVALID_COMMAND_ID"
        )
    return next(iter(ids), None)


def _append_request(
    stream_id: str,
    events: Sequence[NewEvent],
    expected_version: int,
    command_id: str | None,
    max_event_bytes: int,
    fingerprint: str | None = None,
) -> AppendRequest:
    check_stream_id(stream_id)
    check_expected_version(expected_version)
    if not events:
        raise InvalidArgument("an append needs at least one event", reason="NO_EVENTS")
    for event in events:
        check_event_type(event.type)
        check_event_size(event, max_event_bytes)
    return AppendRequest(
        stream_id,
        expected_version,
        effective_command_id(events, command_id),
        tuple(events),
        fingerprint,
    )


def _append_result(request: AppendRequest, row: Any) -> AppendResult:
    stream_id, expected_version = request.stream_id, request.expected_version
    outcome, first_version, last_version, first_position, last_position, recorded_at = row
    if outcome == "reused":
        raise command_id_reused(stream_id)
    if outcome == "conflict":
        raise Conflict(
            f"stream {stream_id}: expected version {expected_version}, "
            f"but the stream is at version {last_version}",
            reason="WRONG_EXPECTED_VERSION",
            metadata={
                "stream_id": stream_id,
                "expected_version": str(expected_version),
                "actual_version": str(last_version),
            },
        )
    return AppendResult(
        stream_id=stream_id,
        first_version=first_version,
        last_version=last_version,
        first_position=first_position,
        last_position=last_position,
        duplicate=outcome == "duplicate",
        events=()
        if outcome == "duplicate"
        else stored_events(
            stream_id,
            request.events,
            request.command_id,
            first_version,
            first_position,
            recorded_at,
        ),
    )
