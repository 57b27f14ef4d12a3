"""The relay (transactional outbox): every committed event reaches the bus, once, in order.

It follows the store's global order from a checkpoint kept in PostgreSQL and
publishes each event with ``Nats-Msg-Id = <stream>:<version>``, so anything
replayed after a crash (published, not yet checkpointed) is dropped by
JetStream's dedupe window. A LISTEN doorbell wakes it within milliseconds of a
commit; ``poll_interval`` is only the safety net.

**Per partition** (a store of P partitions, ``partitions.py``): each lane is relayed in
each partition by a part of its own (``Lane.partition``), following that partition's
gap-free order (``read_partition``) under a lease and a checkpoint of its own
(``lane_name``: the lane's name in partition 0, so a store of one partition keeps its rows
as they were, ``<name>@p<partition>`` in the others), each with its own stream check. So
every event is published once, and in order within its partition, which holds every
event of its stream; across partitions messages interleave. A replica takes every part
whose lease is free, so one replica leads them all until it stops; each part's lease can
be taken over alone. Or, with ``spread=True`` (as the platform runs it), the replicas
share the parts, each leading about P / replicas of them (``relayshares.py``). A relay
reads only its store's P partitions: P may be raised, never lowered while streams live
in the partitions it would leave unread (their first event fixed their partition).
Metrics, dead letters and ``checkpoints`` are of the lane, its parts together
(``partition_checkpoints`` has each part's).

**What it publishes** of an event is what the event's lane's ``redact`` makes of it: its
payload, and its type (on the subject and in ``Parlor-Event-Type``), may be others than
stored, so that the bus tells no more than a spectator may see (a Take Four joker swap
goes as a move); its id, stream, version and position stay its own, and everything below
(the duplicate check, redelivery ids, ``verify``) is of the message as published.

**Leadership** is a lease in ``relay_leases``: one replica holds it and renews it
every ``renew_interval`` seconds; the others try to take it every
``takeover_interval`` and get it once it has lapsed (``lease_seconds`` after the
holder's last renewal), which bumps its fencing token. A leader that stopped
(SIGSTOP, a long pause, a hung host) therefore loses publishing within the lease,
whatever its database session does, and when it wakes it can neither publish nor
move the checkpoint: it publishes only while its lease is locally valid (its clock
says the last token-checked renewal is younger than the lease, with a margin), and
else renews first, which checks the token; every checkpoint write names the token
in the same statement and matches nothing once another replica holds the lease.
An overlap of a few in-flight messages is dropped by JetStream's dedupe window.

**A lost or stale stream** (NATS restarted without its store, the stream deleted or
purged) is found by ``verify``: on taking the lead, after every reconnection to
NATS, when a publish finds no stream, and every ``verify_interval`` seconds. The
relay remembers the stream's creation time and the last event it put on it; a
stream made again since, or whose last event on this relay's subjects is older
than that, is made again if missing and republished from the store (from the
beginning for a new stream, from its last event for one that is behind), with
the metric ``parlor_relay_stream_rebuilds_total`` and a log line.

**What the stream's own limit let go is no loss.** The stream keeps ``max_age`` of messages
(``StreamCheck.max_age``; the bus is a transport, the store keeps every event), so a quiet
lane's last message expires, and a new leader finds none of its lane's on the stream.
``verify`` tells that from a loss by the store's clock: a message is published after its
event is recorded, so a message the stream expired is always of an event recorded longer
ago than ``max_age`` (``_aged_out``, less ``EXPIRY_MARGIN`` for the two servers' clocks). A
lane whose missing messages are all of such events is not behind: nothing is republished
merely because it expired. Anything missing of a younger event is a loss, found and
republished as before, but a rebuild (of a lost stream too) starts no earlier than the
last event that may have expired: it puts back what the stream would still hold, not the
store's whole history, which, published anew, would stay another ``max_age`` and fill the
stream again. It never skips what the lane has yet to publish, however old. Blind spot: an
event published long after it was recorded (the relay behind, NATS away) whose message is
then lost is taken as expired once the event is ``max_age`` old, though the stream would
hold its message a while longer.

The last message on the subjects only *claims* a position (anyone who may publish on them
can write ``Parlor-Position``): ``verify`` believes it once the message is the lane's own,
the store's event at that position, of the lane's category, under its id or a
``redelivery_id`` of it, with its subject and headers (``same_message``; not its payload,
which a later release's redaction may make otherwise). Messages that are not are
passed over (an ERROR log, ``parlor_relay_forged_duplicates_total`` with ``found`` =
``forged position``), walking back at most ``VERIFY_LOOKBACK`` stream sequences. With
nothing of the lane's in that reach, it believes the position it verified last on this
stream (none yet, as on taking the lead: 0, so the lane is republished from the start,
or from the last event the stream's ``max_age`` may have let go, see above; JetStream's
dedupe window drops what is still there).

**Rung, it lingers** ``linger`` seconds (5 ms) before it reads: the appends committed
meanwhile come along in the same read and the same window of publishes, and its work
waits behind the replies of the moves that rang it.

**The checkpoint** is written at most every ``checkpoint_interval`` seconds (and when the
relay stops), not after every batch: under steady moves a batch is one event, and its
checkpoint was a write of its own each time. A crash loses at most that interval's
progress, which is republished and dropped by the dedupe window, as after any crash.

**A closed bus** ends the relay: it takes no lease, renews none and publishes nothing on
a bus that was closed (``Bus.closed``), hands over what it holds and returns. Whoever
closed the bus is done with the relay; one left running (a cancellation swallowed on the
way out) would otherwise lead on a bus that publishes nothing, renewing its lanes' leases
and keeping every other replica of them out.

**An id taken before the event** (anyone who may publish on the subjects can publish
ahead with a future event's ``Nats-Msg-Id``, and JetStream would drop the real event as
its duplicate) is no duplicate: the bus checks the stream's message of that id and raises
``ForeignDuplicate`` unless it is this event. The relay then logs an ERROR (the event's
id and position, the forger's stream sequence), counts it in
``parlor_relay_forged_duplicates_total`` (``found``: ``another message``, or ``no message``
for an id whose message was purged) and publishes the event under ``redelivery_id``
(deterministic: a re-publish after a crash is deduped as before), trying
``REDELIVERY_ATTEMPTS`` such ids before it waits and tries again, as on an outage. Only
that publish moves ``published_position``, so ``verify`` needs no telling: the real
event is on the stream, under its position.

**An event the bus refuses** (over NATS's max payload, say), **or one its lane's
redaction fails on** (a type the game's codec no longer reads: published as it is, it
might carry a rack), is set aside in ``relay_dead_letters`` (with
``parlor_relay_dead_letters_total`` and an ERROR log) and the relay goes on with the next
event; the event stays in the store. Neither is tried again: a relay that stepped down
over one would meet it again at every lead, and publish nothing after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import socket
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from prometheus_client import Counter

from parlor.core.errors import InvalidArgument, Unavailable
from parlor.eventstore import relayshares
from parlor.eventstore.bus import (
    MSG_ID,
    Bus,
    ForeignDuplicate,
    StreamMessage,
    decode_event,
    event_headers,
    redelivery_id,
    same_message,
)
from parlor.eventstore.cursors import partition_key
from parlor.eventstore.doorbell import Doorbell
from parlor.eventstore.events import RecordedEvent
from parlor.eventstore.postgres import PostgresEventStore, rows_to_events
from parlor.eventstore.tasks import cancel_until_done
from parlor.eventstore.urls import libpq_url

log = logging.getLogger(__name__)

Redact = Callable[[RecordedEvent], RecordedEvent | None]
Connection = psycopg.AsyncConnection[tuple[Any, ...]]

STREAM_REBUILDS = Counter(
    "parlor_relay_stream_rebuilds_total",
    "Times a relay found the JetStream stream lost or behind and republished from the store.",
    ["relay"],
)
DEAD_LETTERS = Counter(
    "parlor_relay_dead_letters_total",
    "Events the bus refused (too large, say) or their redaction failed on, set aside in "
    "relay_dead_letters.",
    ["relay"],
)
FORGED_DUPLICATES = Counter(
    "parlor_relay_forged_duplicates_total",
    "Events the bus answered as duplicates of a message that was not them (a forgery "
    "that took their Nats-Msg-Id, or a purged message), published again under another id.",
    ["relay", "found"],
)
REDELIVERY_ATTEMPTS = 4
"""Ids (``redelivery_id``) an event whose own id was taken is tried under, one after another."""
FORGED_POSITION = "forged position"
"""``found`` of ``parlor_relay_forged_duplicates_total`` for a message ``verify`` passed over:
the last on the lane's subjects, it is not the event at the position it claims."""
VERIFY_LOOKBACK = 32
"""Stream sequences ``verify`` walks back past messages that are not the lane's own."""
EXPIRY_MARGIN = 60.0
"""Seconds (at most a tenth of the stream's ``max_age``) before an event is ``max_age`` old
that ``verify`` already takes its message as one the stream may have let go: NATS's clock
expires messages, PostgreSQL's recorded the events, and the two may disagree a little."""
LEADERSHIPS = Counter(
    "parlor_relay_leaderships_total", "Times a relay replica took the lease.", ["relay"]
)

_SERVER_KEEPALIVES = (
    ("tcp_keepalives_idle", 10),
    ("tcp_keepalives_interval", 5),
    ("tcp_keepalives_count", 3),
)

# Every lease and checkpoint statement takes arrays: one round trip for all of a relay's lanes.
_LANES = "unnest(%(names)s::text[], %(tokens)s::bigint[]) AS t(name, token)"
_ACQUIRE = (
    "INSERT INTO relay_leases (name, holder, token, expires_at) "
    "SELECT n, %(holder)s, 1, now() + make_interval(secs => %(secs)s) "
    "FROM unnest(%(names)s::text[]) AS n "
    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
    "token = relay_leases.token + 1, expires_at = excluded.expires_at "
    "WHERE relay_leases.expires_at <= now() OR relay_leases.holder = excluded.holder "
    "RETURNING name, token"
)
_RENEW = (
    "UPDATE relay_leases l SET expires_at = now() + make_interval(secs => %(secs)s) "
    f"FROM {_LANES} WHERE l.name = t.name AND l.token = t.token RETURNING l.name"
)
_RELEASE = (
    f"UPDATE relay_leases l SET expires_at = now() FROM {_LANES} "
    "WHERE l.name = t.name AND l.token = t.token"
)
_FENCE = "EXISTS (SELECT 1 FROM relay_leases l WHERE l.name = %(name)s AND l.token = %(token)s)"
_LOAD_CHECKPOINTS = (
    "WITH made AS (INSERT INTO relay_checkpoints (name, position, updated_at) "
    "SELECT n, 0, now() FROM unnest(%(names)s::text[]) AS n ON CONFLICT (name) DO NOTHING "
    "RETURNING name, position, published_position, stream_created, verified_position) "
    "SELECT name, position, published_position, stream_created, verified_position FROM made "
    "UNION ALL SELECT name, position, published_position, stream_created, verified_position "
    "FROM relay_checkpoints "
    "WHERE name = ANY(%(names)s::text[])"
)
# One statement, one round trip: ``set_config(..., true)`` holds for the statement's own
# transaction (its commit reads the setting before the transaction's settings are reset),
# where BEGIN, SET LOCAL, the update and COMMIT were four round trips.
_SAVE_CHECKPOINTS = (
    "UPDATE relay_checkpoints c SET position = greatest(c.position, t.position), "
    "published_position = greatest(c.published_position, t.published), "
    "verified_position = t.verified, updated_at = now() "
    "FROM unnest(%(names)s::text[], %(tokens)s::bigint[], %(positions)s::bigint[], "
    "%(published)s::bigint[], %(verified)s::bigint[]) AS t(name, token, position, published, "
    "verified) "
    "CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait "
    "WHERE c.name = t.name AND EXISTS "
    "(SELECT 1 FROM relay_leases l WHERE l.name = t.name AND l.token = t.token) RETURNING c.name"
)
_RESET_CHECKPOINT = (
    "UPDATE relay_checkpoints SET position = %(position)s, published_position = %(position)s, "
    f"stream_created = %(created)s, updated_at = now() WHERE name = %(name)s AND {_FENCE} "
    "RETURNING position"
)
_REMEMBER_STREAM = (
    "UPDATE relay_checkpoints SET stream_created = %(created)s "
    f"WHERE name = %(name)s AND {_FENCE} RETURNING position"
)
_DEAD_LETTER = (
    "INSERT INTO relay_dead_letters "
    "(name, position, stream_id, version, type, size, reason, recorded_at) "
    "SELECT %(lane)s, %(position)s, %(stream_id)s, %(version)s, %(type)s, %(size)s, "
    f"%(reason)s, now() WHERE {_FENCE} ON CONFLICT (name, position) DO NOTHING"
)
# The first event at or after a position, and whether it is older than an age by the store's
# own clock (the one that wrote recorded_at): one look up the primary key.
_OLDER_THAN = (
    "SELECT position, recorded_at < now() - make_interval(secs => %(age)s) FROM events "
    "WHERE partition = %(partition)s AND position >= %(position)s ORDER BY position LIMIT 1"
)
_COLUMNS = (
    "stream_id, version, position, type, data, schema_version, command_id, actor, "
    "causation_id, correlation_id, extra, recorded_at"
)
_READ_CATEGORIES = (
    # The partition's head as of the same snapshot: with nothing of these categories after
    # the last one read, the lanes' checkpoints move up to it (within a partition positions
    # commit in order).
    "WITH head AS (SELECT coalesce(max(position), 0) AS head FROM events "
    "WHERE partition = %(partition)s) "
    f"SELECT head.head, e.* FROM head LEFT JOIN LATERAL (SELECT {_COLUMNS} FROM events "
    "WHERE partition = %(partition)s AND position >= %(from_position)s "
    "AND split_part(stream_id, '-', 1) = ANY(%(categories)s) "
    "ORDER BY position LIMIT %(limit)s) e ON true"
)
# Each (partition, checkpoint)'s next position: the first event after it in its partition.
_NEXT_AFTER = (
    "SELECT (SELECT min(position) FROM events WHERE partition = t.p AND position > t.c) "
    "FROM unnest(%(partitions)s::smallint[], %(positions)s::bigint[]) WITH ORDINALITY "
    "AS t(p, c, n) ORDER BY t.n"
)
# The event at a position a message claims, with its partition (``verify``).
_EVENT_AT = f"SELECT partition, {_COLUMNS} FROM events WHERE position = %(position)s"


def lane_name(name: str, partition: int) -> str:
    """The lease and checkpoint name of lane ``name``'s part in ``partition``: the lane's
    own name in partition 0 (so a store of one partition keeps its rows as they were, and
    a database whose P grows goes on from them), ``name@p<partition>`` in the others."""
    return partition_key(name, partition)


class LeaseLost(Exception):
    """Another replica holds the relay's lease now: stop publishing, touch nothing."""


class BusClosed(Exception):
    """The relay's bus was closed: lead no more, publish nothing (``run`` returns)."""


class _Reverify(Exception):
    """The stream may have changed under the relay (no stream, a reconnection): check it."""


def keep(event: RecordedEvent) -> RecordedEvent | None:
    """The default ``redact``: publish every event as it is."""
    return event


@dataclass(eq=False)
class Lane:
    """What one relay publishes under one lease and checkpoint (both named ``name``), in
    one partition of the store's order (``partition``; ``base`` is the lane's name in
    every partition, ``name`` that of this part, see ``lane_name``).

    A lane with a ``category`` reads only that category's events (in SQL) and publishes on
    ``subject`` (default: the category's subjects); a lane without one reads every event.
    The lease and checkpoint are the lane's, whichever relay holds it: a process relaying
    four categories takes four leases, and one relaying one of them elsewhere competes
    for that one only.
    """

    name: str
    redact: Redact = keep
    subject: str | None = None
    category: str | None = None
    partition: int = 0  # the store's partition whose order this lane follows
    base: str = ""  # the lane's name in every partition (metrics, dead letters); ``name``'s
    held: bool = False
    token: int = 0
    checkpoint: int = 0
    saved: int = 0  # of ``checkpoint``, what is written in relay_checkpoints
    published: int = 0
    reported: int = 0  # of ``published``, what the monitor has counted in its metric
    published_position: int = 0
    stream_created: str | None = None
    verified_position: int = 0  # the last position ``verify`` found of this lane's on the stream
    verified_connections: int = -1
    verify_due: float = 0.0

    def __post_init__(self) -> None:
        if not self.base:
            self.base = self.name


@dataclass
class _Check:
    """One check of a lane's parts in every partition (they share the stream's subjects):
    what it has reported, so that a forgery or a rebuild is reported once, not by each."""

    reported: set[int] = dataclasses.field(default_factory=set)  # forgeries' stream sequences
    rebuilt: bool = False


class Relay:
    """Publishes the store's events to the bus; run one per service replica, one leads.

    ``Relay(store, bus, name=..., redact=..., subject=...)`` relays one lane of every
    event; ``Relay(store, bus, lanes=[...])`` (or ``add_lane``) one reader of the global
    order for several categories, each lane under its own lease (see ``Lane``).
    """

    def __init__(
        self,
        store: PostgresEventStore,
        bus: Bus,
        *,
        name: str = "default",
        redact: Redact = keep,
        subject: str | None = None,
        lanes: Sequence[Lane] | None = None,
        batch_size: int = 500,
        poll_interval: float = 1.0,
        takeover_interval: float = 0.5,
        max_backoff: float = 2.0,
        window: int = 64,
        lease_seconds: float = 6.0,
        renew_interval: float | None = None,
        verify_interval: float = 10.0,
        checkpoint_interval: float = 0.1,
        linger: float = 0.005,
        spread: bool = False,
    ) -> None:
        self.store = store
        self.bus = bus
        # (a store-less relay in unit tests relays one partition)
        self.partitions: int = getattr(store, "partitions", 1)
        self.lanes: dict[str, Lane] = {}  # by lease name: one a (lane, partition)
        self._by_key: dict[tuple[str | None, int], Lane] = {}
        for lane in lanes if lanes is not None else [Lane(name, redact, subject)]:
            self.add_lane(lane)
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.takeover_interval = takeover_interval
        self.max_backoff = max_backoff
        self.window = window
        self.lease_seconds = lease_seconds
        self.renew_interval = renew_interval or lease_seconds / 3
        self.verify_interval = verify_interval
        self.checkpoint_interval = checkpoint_interval
        self.linger = linger
        # Share the parts among the relay's live replicas (relayshares.py); with one
        # partition there is nothing to share.
        self.spread = spread and self.partitions > 1
        self.replicas = 1  # the replicas sharing the parts, as last counted
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.published = 0
        self.rebuilds = 0
        self.forgeries = 0  # publishes answered by a duplicate that was not the event
        self.session_pid = 0  # the backend pid of this replica's relay connection
        self._task: asyncio.Task[None] | None = None
        self._valid_until = 0.0
        self._renew_due = 0.0
        self._takeover_due = 0.0
        self._save_due = 0.0
        self._check: _Check | None = None  # while a lane's partitions are checked together

    def add_lane(self, lane: Lane) -> None:
        """Relay one more lane (taken at the next takeover attempt if the relay runs): in
        each of the store's partitions, under a lease and checkpoint of that partition's
        (``lane_name``; ``lane`` itself is partition 0's)."""
        if lane.name in self.lanes or any(held.base == lane.name for held in self.lanes.values()):
            raise ValueError(f"relay already has a lane {lane.name!r}")
        if lane.subject is None:
            lane.subject = (
                self.bus.subjects.all()
                if lane.category is None
                else self.bus.subjects.category(lane.category)
            )
        if self.lanes and (lane.category is None) != (self._unfiltered):
            raise ValueError("a relay's lanes are all of one category each, or one of everything")
        lane.partition, lane.base = 0, lane.name
        for partition in range(self.partitions):
            part = (
                lane
                if partition == 0
                else dataclasses.replace(
                    lane, name=lane_name(lane.name, partition), partition=partition
                )
            )
            self.lanes[part.name] = part
            self._by_key[(lane.category, partition)] = part

    def lane_for(self, name: str, partition: int) -> Lane:
        """Lane ``name``'s part in ``partition`` (the one that publishes its events)."""
        return self.lanes[lane_name(name, partition)]

    @property
    def _unfiltered(self) -> bool:
        return any(lane.category is None for lane in self.lanes.values())

    @property
    def name(self) -> str:
        """The lanes' names, for logs and the task's name."""
        return "+".join(sorted({lane.base for lane in self.lanes.values()}))

    @property
    def is_leader(self) -> bool:
        """Whether this replica holds the lease of any of its lanes."""
        return any(lane.held for lane in self.lanes.values())

    @property
    def token(self) -> int:
        return max((lane.token for lane in self.lanes.values() if lane.held), default=0)

    def _held(self) -> list[Lane]:
        return [lane for lane in self.lanes.values() if lane.held]

    def start(self) -> None:
        self._task = asyncio.create_task(self.run(), name=f"parlor-relay-{self.name}")

    async def stop(self) -> None:
        """Stop publishing and release leadership (another replica takes over)."""
        if self._task is not None:
            await cancel_until_done(self._task)
            self._task = None

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    async def run(self) -> None:
        """Wait for a lease, lead until every lease is lost, repeat; returns only once its
        bus is closed (its leases handed over)."""
        while not self.bus.closed:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    libpq_url(self.store.url),
                    autocommit=True,
                    keepalives=1,
                    keepalives_idle=10,
                    keepalives_interval=5,
                    keepalives_count=3,
                )
                try:
                    self.session_pid = conn.info.backend_pid
                    for setting, value in _SERVER_KEEPALIVES:
                        await conn.execute(f"SET {setting} = {value}")
                    await self._wait_for_lease(conn)
                    await self._lead(conn)
                finally:
                    held = self._held()
                    for lane in held:
                        lane.held = False
                    if held:
                        with contextlib.suppress(Exception):
                            # Hand over at once rather than after the lease runs out.
                            await asyncio.wait_for(conn.execute(_RELEASE, _names(held)), 1.0)
                    if self.spread:
                        with contextlib.suppress(Exception):
                            # The others' shares grow now, not when this row expires.
                            leave = {"relay": self._members_name, "holder": self.holder}
                            await asyncio.wait_for(conn.execute(relayshares.LEAVE, leave), 1.0)
                    with contextlib.suppress(Exception):
                        await conn.close()
            except asyncio.CancelledError:
                raise
            except BusClosed:
                break
            except LeaseLost as exc:
                log.warning("relay %s lost its lease: %s", self.name, exc)
                await asyncio.sleep(self.takeover_interval)
            except Exception as exc:
                log.warning("relay %s stepped down: %s", self.name, exc)
                await asyncio.sleep(self.takeover_interval)
        log.warning("relay %s stops: its bus is closed", self.name)

    async def _wait_for_lease(self, conn: Connection) -> None:
        while True:
            if await self._acquire(conn):
                return
            await asyncio.sleep(self.takeover_interval)

    def _check_bus(self) -> None:
        if self.bus.closed:
            raise BusClosed("the relay's bus is closed")

    async def _acquire(self, conn: Connection) -> bool:
        """Try to take the lease of every lane not held; True if any lane is held now."""
        self._check_bus()
        loop = asyncio.get_running_loop()
        self._takeover_due = loop.time() + self.takeover_interval
        missing = [lane for lane in self.lanes.values() if not lane.held]
        if self.spread:
            missing = await self._to_take(conn, missing)
        if missing:
            sent = loop.time()
            params = {
                "names": [lane.name for lane in missing],
                "holder": self.holder,
                "secs": self.lease_seconds,
            }
            rows = await (await conn.execute(_ACQUIRE, params)).fetchall()
            if rows:
                taken = [self.lanes[name] for name, _ in rows]
                await self._load_checkpoints(conn, taken)
                if not self._held():
                    self._leased(sent)
                # (else the earlier renewal's deadline stands: it is the sooner)
                for (name, token), lane in zip(rows, taken, strict=True):
                    lane.held, lane.token, lane.verified_connections = True, int(token), -1
                    LEADERSHIPS.labels(lane.base).inc()
                    log.info("relay %s leads (lease token %d)", name, lane.token)
        return self.is_leader

    def _leased(self, sent: float) -> None:
        # The database counts the lease from when it got the statement, after ``sent``:
        # counting from ``sent``, with a margin for clock rates, errs on the safe side.
        self._valid_until = sent + self.lease_seconds * 0.75
        self._renew_due = sent + self.renew_interval

    def _lost(self, lanes: Sequence[Lane], why: str) -> None:
        """These lanes' leases are another replica's now: stop publishing them."""
        for lane in lanes:
            lane.held = False
            log.warning("relay %s lost its lease: %s", lane.name, why)
        if not self.is_leader:
            raise LeaseLost(why)

    async def _renew(self, conn: Connection) -> None:
        held = self._held()
        sent = asyncio.get_running_loop().time()
        rows = await (
            await conn.execute(_RENEW, {**_names(held), "secs": self.lease_seconds})
        ).fetchall()
        kept = {name for (name,) in rows}
        self._lost([lane for lane in held if lane.name not in kept], "its token was taken over")
        self._leased(sent)
        if self.spread:
            await self._hand_over(conn)

    @property
    def _members_name(self) -> str:
        # Replicas share with those of the same lanes and P (relayshares.py).
        return f"{self.name}/P{self.partitions}"

    async def _count_replicas(self, conn: Connection, lanes: Sequence[Lane]) -> list[str]:
        """Renew this replica's row, count the replicas sharing the parts
        (``self.replicas``), and return which of ``lanes`` are free to take."""
        params = {
            "relay": self._members_name,
            "holder": self.holder,
            "secs": self.lease_seconds,
            "names": [lane.name for lane in lanes],
        }
        row = await (await conn.execute(relayshares.HEARTBEAT, params)).fetchone()
        assert row is not None  # one row, always
        self.replicas = int(row[0])
        return list(row[1])

    async def _to_take(self, conn: Connection, missing: Sequence[Lane]) -> list[Lane]:
        """Of the parts not held, the free ones this replica's share leaves it to take."""
        free = set(await self._count_replicas(conn, missing))
        return relayshares.to_take(
            list(self.lanes.values()),
            [lane for lane in missing if lane.name in free],
            self.partitions,
            self.replicas,
        )

    async def _hand_over(self, conn: Connection) -> None:
        """Hand over the parts held beyond this replica's share: their checkpoints saved
        under their tokens, then their leases released for another replica to take."""
        await self._count_replicas(conn, [])
        over = relayshares.to_hand_over(self._held(), self.partitions, self.replicas)
        if not over:
            return
        for lane in over:
            # Verified now, while its last message is near the stream's end: the replica
            # taking it over goes on from there when the other parts' messages have buried
            # it by then (``_load_checkpoints``), instead of publishing it all again.
            await self.verify(conn, lane)
        await self.save_checkpoint(conn, 0)  # each held part's own checkpoint
        await conn.execute(_RELEASE, _names(over))
        for lane in over:
            lane.held = False
            log.info(
                "relay %s hands its lease over: %d replicas share %d partitions",
                lane.name,
                self.replicas,
                self.partitions,
            )

    async def _hold_lease(self, conn: Connection) -> None:
        """Renew when due; never go on (publish) on a lease the local clock says has run out,
        nor on a closed bus (``BusClosed``: no renewal, the leases are handed over)."""
        self._check_bus()
        now = asyncio.get_running_loop().time()
        while now >= self._renew_due or now >= self._valid_until:
            await self._renew(conn)
            now = asyncio.get_running_loop().time()

    async def _fenced(self, conn: Connection, lane: Lane, sql: str, **params: object) -> None:
        row = await (
            await conn.execute(sql, {"name": lane.name, "token": lane.token, **params})
        ).fetchone()
        if row is None:
            self._lost([lane], f"token {lane.token} is no longer the lease's")

    async def _lead(self, conn: Connection) -> None:
        async with Doorbell(self.store.url) as bell:
            try:
                await self._follow(conn, bell)
            except asyncio.CancelledError:
                # Stopped: remember how far it got, so that the next leader starts there.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._save_unsaved(conn), 1.0)
                raise

    async def _follow(self, conn: Connection, bell: Doorbell) -> None:
        backoff = 0.05
        while True:
            await self._hold_lease(conn)
            loop = asyncio.get_running_loop()
            if loop.time() >= self._takeover_due:
                await self._acquire(conn)
            if not await self._verify_due(conn):
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self.max_backoff)
                continue
            backoff = 0.05
            bell.clear()
            try:
                full = await self._follow_partitions(conn)
            except _Reverify:
                for lane in self.lanes.values():
                    lane.verified_connections = -1
                continue
            if loop.time() >= self._save_due:
                await self._save_unsaved(conn)
            if full:
                continue
            now = loop.time()
            dues = [self._renew_due, *(lane.verify_due for lane in self._held())]
            if len(self._held()) < len(self.lanes):
                dues.append(self._takeover_due)
            if self._unsaved():
                dues.append(self._save_due)
            rung = await bell.wait(max(min(self.poll_interval, min(dues) - now), 0.01))
            if rung and self.linger > 0:
                await asyncio.sleep(self.linger)  # the appends close behind it come along

    async def _follow_partitions(self, conn: Connection) -> bool:
        """Read and publish the next batch of each partition a held lane follows, from its
        lanes' checkpoints in that partition's own order; True if any batch was full (more
        is waiting)."""
        full = False
        for partition in sorted({lane.partition for lane in self._held()}):
            lanes = [lane for lane in self._held() if lane.partition == partition]
            if not lanes:
                continue  # lost on the way
            start = min(lane.checkpoint for lane in lanes)
            batch, end = await self._read(conn, partition, start + 1, lanes)
            if batch:
                await self.publish_batch(batch, conn, partition)
            if end > start:
                for lane in lanes:
                    if lane.held:
                        lane.checkpoint = max(lane.checkpoint, end)
            full = full or len(batch) == self.batch_size
        return full

    async def _read(
        self, conn: Connection, partition: int, from_position: int, lanes: Sequence[Lane]
    ) -> tuple[list[RecordedEvent], int]:
        """The next batch of the lanes' events in ``partition``'s order and the position
        the lanes are read up to."""
        if self._unfiltered:
            # Partition 0's order even with P = 1, where it is every event: a replica of one
            # partition beside replicas of more (P being raised) follows partition 0 alone,
            # as their part of partition 0 does under the same lease.
            batch = await self.store.read_partition(partition, from_position, self.batch_size)
            return batch, batch[-1].position if batch else 0
        params = {
            "partition": partition,
            "from_position": from_position,
            "categories": [lane.category for lane in lanes],
            "limit": self.batch_size,
        }
        async with conn.cursor(binary=True) as cursor:
            await cursor.execute(_READ_CATEGORIES, params, prepare=True)
            rows = await cursor.fetchall()
        head = int(rows[0][0])
        if rows[0][1] is None:  # nothing of these categories: read up to the head
            return [], head
        batch = rows_to_events([row[1:] for row in rows])
        if self.store.upcasters:
            batch = [self.store.upcasters.upcast(event) for event in batch]
        return batch, batch[-1].position if len(batch) == self.batch_size else head

    async def _verify_due(self, conn: Connection) -> bool:
        """Verify each held lane that reconnected or is due; False if the bus is away."""
        now = asyncio.get_running_loop().time()
        due = {
            lane.base
            for lane in self._held()
            if lane.verified_connections != self.bus.connections or now >= lane.verify_due
        }
        for base in sorted(due):
            # A lane's parts in every partition are checked together: the same subjects
            # carry them all, and a forgery among them is reported once, not by each part.
            self._check = _Check()
            try:
                for lane in self._held():
                    if lane.base == base and not await self.verify(conn, lane):
                        return False
            finally:
                self._check = None
        return True

    async def verify(self, conn: Connection, lane: Lane | None = None) -> bool:
        """Check the stream still holds what this lane published; rebuild it if not.

        What the stream's own ``max_age`` may have let go is no loss: a rebuild republishes
        only what the stream would still hold (``_aged_out``), and none is made when all that
        is missing may have expired.

        False if the bus could not be asked (it is away: try again later).
        """
        lane = lane or next(iter(self.lanes.values()))
        connections = self.bus.connections
        try:
            check = await self.bus.check_stream(lane.subject or self.bus.subjects.all())
        except Unavailable as exc:
            log.warning("relay %s cannot check the stream (%s); retrying", lane.name, exc)
            return False
        known = lane.stream_created
        lost = known is not None and check.created != known
        resume: int | None = None
        if lost:
            why, resume = "the stream was lost and made again", 0
        else:
            try:
                last = await self._last_of_ours(lane, check.last)
            except Unavailable as exc:
                log.warning("relay %s cannot check the stream (%s); retrying", lane.name, exc)
                return False
            if last is None:
                # Nothing of ours among the last VERIFY_LOOKBACK messages: believe no more
                # than this lane saw of the stream at its last verify (0 if none yet).
                last = lane.verified_position if known == check.created else 0
            if last < lane.published_position:
                why, resume = (
                    f"the stream's last event is at position {last}, "
                    f"behind the {lane.published_position} published",
                    last,
                )
            lane.verified_position = last
        if resume is not None and check.max_age > 0:
            expired = await self._aged_out(conn, lane, check.max_age)
            if expired > resume:
                if expired >= lane.published_position and not lost:
                    resume = None  # all that is missing may have expired: nothing was lost
                else:
                    why += (
                        f"; up to position {expired} it may have expired "
                        f"(max_age {check.max_age:g} s)"
                    )
                    resume = expired
        if resume is not None:
            await self._fenced(
                conn, lane, _RESET_CHECKPOINT, position=resume, created=check.created
            )
            lane.checkpoint = lane.published_position = lane.saved = resume
            if self._check is None or not self._check.rebuilt:
                # one rebuild of the stream however many of the lane's partitions it takes
                self.rebuilds += 1
                STREAM_REBUILDS.labels(lane.base).inc()
            if self._check is not None:
                self._check.rebuilt = True
            log.warning(
                "relay %s: %s; republishing from the store after position %d",
                lane.name,
                why,
                resume,
                extra={"relay": lane.name, "resume_after": resume},
            )
        elif check.created != known:
            await self._fenced(conn, lane, _REMEMBER_STREAM, created=check.created)
        if lost or resume == 0:
            lane.verified_position = 0
        lane.stream_created = check.created
        lane.verified_connections = connections
        lane.verify_due = asyncio.get_running_loop().time() + self.verify_interval
        return True

    async def _aged_out(self, conn: Connection, lane: Lane, max_age: float) -> int:
        """The last position, up to the lane's ``published_position``, whose message the
        stream may have let go by its ``max_age``: its event was recorded longer ago than
        that (less ``EXPIRY_MARGIN``), by the store's clock; 0 if none.

        Sound because a message is published after its event is recorded: one the stream
        expired is of an event older than ``max_age``. Recording times follow positions
        (appends are serialised; an append's time is its transaction's start, so one that
        waited for the append lock may be a little earlier than the one before), so a binary
        search over positions finds it, each step one look up the primary key; the common
        case (the lane's last message itself may have expired) is the first look.
        """
        age = max_age - min(EXPIRY_MARGIN, max_age / 10)
        old, young = 0, lane.published_position + 1  # old: 0 or expired; from young on: not
        probe = lane.published_position
        while young - old > 1:
            row = await (
                await conn.execute(
                    _OLDER_THAN, {"age": age, "position": probe, "partition": lane.partition}
                )
            ).fetchone()
            if row is None or row[0] >= young or not row[1]:
                young = probe
            else:
                old = int(row[0])
            probe = (old + young) // 2
        return old

    async def _last_of_ours(self, lane: Lane, last: StreamMessage | None) -> int | None:
        """The position of the last message on the lane's subject that is the lane's own
        event (checked against the store), walking back at most ``VERIFY_LOOKBACK``
        sequences past messages that are not; 0 if the stream has none of them at all,
        None if none is in that reach. Each message passed over is logged and counted as
        a forgery (``found``: ``forged position``), except the lane's own messages of the
        store's other partitions (the same subjects carry every partition's events): those
        are passed over without a word and, ``VERIFY_LOOKBACK`` of them for each other
        partition at most, do not use up the reach; nor is what lies behind them reported (of
        one partition, the walk would have stopped there). A forgery whose stream sequence is in
        ``_check.reported`` (another partition's part met it in the same check) is not
        reported again. Past the reach, one look on the game of the part's last published
        event (``_last_on_its_game``) before None."""
        reported = None if self._check is None else self._check.reported
        subject = lane.subject or self.bus.subjects.all()
        floor = last.sequence - VERIFY_LOOKBACK if last is not None else 0
        others_left = VERIFY_LOOKBACK * (self.partitions - 1)
        passed_ours = False  # past the lane's last message (of another partition)
        while last is not None:
            owner = await self._owner(lane, last)
            if owner == lane.partition:
                return last.claimed_position
            if owner is not None:
                passed_ours = True
                if others_left > 0:
                    others_left -= 1
                    floor -= 1
            elif not passed_ours and (reported is None or last.sequence not in reported):
                if reported is not None:
                    reported.add(last.sequence)
                self._forged_position(lane, last)
            within = last.sequence - max(floor, 0) - 1
            if within <= 0:
                return 0 if floor <= 0 else await self._last_on_its_game(lane)
            last = await self.bus.message_before(subject, last.sequence, within)
        return 0 if floor <= 0 else await self._last_on_its_game(lane)

    async def _last_on_its_game(self, lane: Lane) -> int | None:
        """``published_position`` if the stream holds this part's last published event as
        the part published it, looked up on that event's own game's subjects; else None.

        One look for a part whose last message is out of the walk's reach: the lane's
        other parts, published by other replicas (``spread``), or a batch of them, came
        after it on the same subjects. A message there that is not the event (a forgery,
        another position) proves nothing, and the walk's answer (None) stands."""
        if lane.published_position <= 0:
            return None
        rows = await self.store.fetch(_EVENT_AT, {"position": lane.published_position})
        if not rows:
            return None
        stream_id = str(rows[0][1])  # (partition, then _COLUMNS: stream_id first)
        try:
            check = await self.bus.check_stream(self.bus.subjects.stream_of(stream_id))
        except Unavailable:
            return None
        last = check.last
        if last is None or last.claimed_position != lane.published_position:
            return None
        return last.claimed_position if await self._owner(lane, last) == lane.partition else None

    def _forged_position(self, lane: Lane, last: StreamMessage) -> None:
        """Report ``last``: the last on the lane's subjects, it is not the event whose position
        it claims."""
        self.forgeries += 1
        FORGED_DUPLICATES.labels(lane.base, FORGED_POSITION).inc()
        log.error(
            "relay %s: the stream's message at sequence %d (on %s, claiming position %d) "
            "is not an event this relay published; looking at the message before it",
            lane.name,
            last.sequence,
            last.subject,
            last.claimed_position,
            extra={
                "relay": lane.name,
                "forged_sequence": last.sequence,
                "claimed_position": last.claimed_position,
            },
        )

    async def _is_ours(self, lane: Lane, message: StreamMessage) -> bool:
        """Whether ``message`` is what this lane's part in its partition published (see
        ``_owner``)."""
        return await self._owner(lane, message) == lane.partition

    async def _owner(self, lane: Lane, message: StreamMessage) -> int | None:
        """The partition of the store's event at the position ``message`` claims if the
        message is what this lane (in that partition) publishes of it, else None: that
        event, of the lane's category and not kept off the bus by its redaction, on its
        subject, under its own id or a ``redelivery_id`` of it,
        with its headers (``same_message``), under the type its redaction shows it as or
        its type in the store.

        Not its payload: that is what the lane's redaction made of the event when it was
        published, which a later release may make otherwise (every message of a lane
        would look forged after an upgrade, and be published again). Nor only the type it
        is shown as now, for the same reason: a release before may have published it under
        its stored type (Take Four's joker swaps, before they were shown as moves). The
        headers carry what only the store knows before the relay publishes it (the
        recording time to the microsecond, the command and correlation ids); a
        ``redelivery_id`` is checked against the payload the message holds."""
        try:
            claimed = decode_event(message.headers, message.data)
        except InvalidArgument:
            return None
        if claimed is None:
            return None
        rows = await self.store.fetch(_EVENT_AT, {"position": claimed.position})
        if not rows:
            return None
        partition = int(rows[0][0])
        (event,) = rows_to_events([rows[0][1:]])
        if self.store.upcasters:
            event = self.store.upcasters.upcast(event)
        if lane.category is not None and event.stream_id.partition("-")[0] != lane.category:
            return None
        try:
            out = lane.redact(event)
        except Exception:
            return None  # never published (it went to the dead letters)
        if out is None:
            return None
        message_id = message.headers.get(MSG_ID, "")
        for shown in dict.fromkeys((out.type, event.type)):
            carried = dataclasses.replace(out, type=shown, data=message.data)
            if message_id != out.message_id and message_id not in {
                redelivery_id(carried, attempt) for attempt in range(1, REDELIVERY_ATTEMPTS + 1)
            }:
                continue
            headers = event_headers(carried)
            headers[MSG_ID] = message_id
            if same_message(
                self.bus.subjects.for_event(carried),
                message.data,
                headers,
                message.subject,
                message.data,
                message.headers,
            ):
                return partition
        return None

    def _lane_of(self, event: RecordedEvent, partition: int) -> Lane | None:
        """The held lane that publishes ``event`` (of ``partition``) and has not yet, if any."""
        category = None if self._unfiltered else event.stream_id.partition("-")[0]
        lane = self._by_key.get((category, partition))
        return lane if lane is not None and lane.held and event.position > lane.checkpoint else None

    async def publish_batch(
        self, batch: Sequence[RecordedEvent], conn: Connection, partition: int = 0
    ) -> None:
        """Publish ``partition``'s events in order, ``window`` at a time; while the bus is
        down, retry from the gap.

        The publishes of a window leave in order on one NATS connection, so what
        JetStream stored is a prefix of it; the rest is sent again (dedupe drops repeats).
        An event the bus refuses is set aside as a dead letter and the rest go on.
        """
        outgoing: list[tuple[RecordedEvent, Lane, RecordedEvent]] = []
        for event in batch:
            lane = self._lane_of(event, partition)
            if lane is None:
                continue
            try:
                out = lane.redact(event)
            except Exception as exc:
                # Never published as it is (it may hold what the redaction strips), never
                # met again: a relay that stepped down over it would meet it at every lead.
                await self._dead_letter(
                    conn, lane, event, event, f"its redaction failed: {exc or type(exc).__name__}"
                )
                continue
            if out is not None:
                outgoing.append((event, lane, out))
        start, backoff = 0, 0.05
        while start < len(outgoing):
            await self._hold_lease(conn)
            if any(lane.verified_connections != self.bus.connections for lane in self._held()):
                raise _Reverify
            if not all(lane.held for _, lane, _ in outgoing[start : start + self.window]):
                # A lane whose lease was lost on the way publishes nothing more.
                outgoing[start:] = [item for item in outgoing[start:] if item[1].held]
                continue
            window = outgoing[start : start + self.window]
            results = await asyncio.gather(
                *(self.bus.publish_event(out) for _, _, out in window), return_exceptions=True
            )
            done = 0
            for result in results:
                if isinstance(result, BaseException):
                    break
                done += 1
            for (event, lane, _), result in zip(window[:done], results, strict=False):
                lane.published += 1
                if result is True:
                    # Only what the stream took as new: a duplicate may be an id the dedupe
                    # window remembers for a message no longer there (a purged stream).
                    lane.published_position = event.position
            self.published += done
            start += done
            if done == len(window):
                backoff = 0.05
                continue
            failed_event, failed_lane, failed_out = outgoing[start]
            failure = results[done]
            assert isinstance(failure, BaseException)
            if isinstance(failure, ForeignDuplicate):
                try:
                    await self._redeliver(failed_lane, failed_event, failed_out, failure)
                except (InvalidArgument, Unavailable) as exc:
                    failure = exc  # handled below, as if the first publish had failed so
                else:
                    start += 1
                    continue
            if isinstance(failure, InvalidArgument):
                await self._dead_letter(
                    conn, failed_lane, failed_event, failed_out, failure.message
                )
                start += 1
                continue
            if not isinstance(failure, Unavailable):
                raise failure
            if failure.reason == "STREAM_MISSING":
                raise _Reverify
            log.warning("relay %s: bus unavailable (%s); retrying", self.name, failure)
            first_unpublished = failed_event.position
            if first_unpublished > 1:
                # What came before it in this partition's order is published: only this
                # partition's lanes may be saved that far (the others' orders interleave).
                for lane in self._held():
                    if lane.partition == partition:
                        lane.checkpoint = max(lane.checkpoint, first_unpublished - 1)
                await self.save_checkpoint(conn, 0)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self.max_backoff)

    async def _redeliver(
        self, lane: Lane, event: RecordedEvent, out: RecordedEvent, taken: ForeignDuplicate
    ) -> None:
        """Publish ``out`` under a ``redelivery_id``: its own id was ``taken`` by a message
        that is not it. Raises ``Unavailable`` once every id tried was taken too."""
        for attempt in range(1, REDELIVERY_ATTEMPTS + 1):
            self.forgeries += 1
            FORGED_DUPLICATES.labels(lane.base, taken.found).inc()
            message_id = redelivery_id(out, attempt)
            log.error(
                "relay %s: %s (position %d) was dropped as a duplicate of %s on the stream "
                "(sequence %d), not this event; publishing it as %s",
                lane.name,
                taken.message_id,
                event.position,
                taken.found,
                taken.sequence,
                message_id,
                extra={
                    "relay": lane.name,
                    "message_id": taken.message_id,
                    "position": event.position,
                    "forged_sequence": taken.sequence,
                },
            )
            try:
                new = await self.bus.publish_event(out, message_id=message_id)
            except ForeignDuplicate as again:
                taken = again
                continue
            lane.published += 1
            self.published += 1
            if new:
                lane.published_position = event.position
            return
        raise Unavailable(
            f"every id {event.message_id} may be published under was taken", reason="BUS_FORGED"
        )

    async def _dead_letter(
        self,
        conn: Connection,
        lane: Lane,
        event: RecordedEvent,
        out: RecordedEvent,
        reason: str,
    ) -> None:
        """Set ``event`` aside for good (the bus refused ``out``, or no ``out`` could be made)."""
        await conn.execute(
            _DEAD_LETTER,
            {
                "name": lane.name,
                "lane": lane.base,
                "token": lane.token,
                "position": event.position,
                "stream_id": event.stream_id,
                "version": event.version,
                "type": event.type,
                "size": len(out.data),
                "reason": reason[:500],
            },
        )
        DEAD_LETTERS.labels(lane.base).inc()
        log.error(
            "relay %s: %s (position %d, %d bytes) not published: %s; set aside as a dead letter",
            lane.name,
            event.message_id,
            event.position,
            len(out.data),
            reason[:500],
            extra={"relay": lane.name, "message_id": event.message_id},
        )

    async def _load_checkpoints(self, conn: Connection, lanes: Sequence[Lane]) -> None:
        rows = await (
            await conn.execute(_LOAD_CHECKPOINTS, {"names": [lane.name for lane in lanes]})
        ).fetchall()
        for name, position, published_position, stream_created, verified in rows:
            lane = self.lanes[name]
            lane.checkpoint, lane.published_position = int(position), int(published_position)
            lane.saved = lane.checkpoint
            lane.stream_created = stream_created
            # What the lane's last holder's verify found on that stream: a replica taking
            # the part over believes it, as the holder would have, when its own look finds
            # none of the part's messages in reach (buried by the other parts' replicas).
            lane.verified_position = int(verified)

    def _unsaved(self) -> bool:
        return any(lane.checkpoint > lane.saved for lane in self._held())

    async def _save_unsaved(self, conn: Connection) -> None:
        """Save the held lanes' checkpoints if any moved since the last save; the next save
        is due ``checkpoint_interval`` from now."""
        if not self._unsaved():
            return
        self._save_due = asyncio.get_running_loop().time() + self.checkpoint_interval
        await self.save_checkpoint(conn, min(lane.checkpoint for lane in self._held()))

    async def save_checkpoint(self, conn: Connection, position: int) -> None:
        """Remember the last position handled (every held lane's: ``position``, or its own
        checkpoint if further); never moves back; only with each lease's token (a lane
        whose token is gone is lost)."""
        held = self._held()
        positions = [max(lane.checkpoint, position) for lane in held]
        params = {
            **_names(held),
            "positions": positions,
            "published": [lane.published_position for lane in held],
            "verified": [lane.verified_position for lane in held],
        }
        # It need not wait for the disk (synchronous_commit off in the statement): a
        # checkpoint a database crash loses (the last fraction of a second of them) only
        # republishes events JetStream's dedupe window drops, and each wait for a WAL flush
        # queued in front of the appends' commits.
        rows = await (await conn.execute(_SAVE_CHECKPOINTS, params)).fetchall()
        kept = {name for (name,) in rows}
        for lane, saved in zip(held, positions, strict=True):
            if lane.name in kept:
                lane.saved = max(lane.saved, saved)
        lost = [lane for lane in held if lane.name not in kept]
        if lost:
            self._lost(lost, f"token {lost[0].token} is no longer the lease's")

    async def partition_checkpoints(self) -> dict[str, int]:
        """Each (lane, partition)'s saved checkpoint, by its lease name: the last position
        of that partition's order it published (on the store's pool, within its process's
        connections)."""
        rows = await self.store.fetch(
            "SELECT name, position FROM relay_checkpoints WHERE name = ANY(%(names)s)",
            {"names": list(self.lanes)},
        )
        found = {str(name): int(position) for name, position in rows}
        return {name: found.get(name, 0) for name in self.lanes}

    async def checkpoints(self) -> dict[str, int]:
        """Each lane's last position published (for monitoring and tests).

        With one partition, its checkpoint. With P > 1, where each partition has its own
        (``partition_checkpoints``): the position up to which every event is published,
        the one before the first event after a partition's checkpoint (of the partitions
        whose checkpoint is not their head), or the highest checkpoint when no partition
        has one (the global head once it has published everything)."""
        saved = await self.partition_checkpoints()
        if self.partitions == 1:
            return {lane.base: saved[lane.name] for lane in self.lanes.values()}
        lanes = list(self.lanes.values())
        rows = await self.store.fetch(
            _NEXT_AFTER,
            {
                "partitions": [lane.partition for lane in lanes],
                "positions": [saved[lane.name] for lane in lanes],
            },
        )
        found: dict[str, int] = {}
        for lane, (following,) in zip(lanes, rows, strict=True):
            if following is None:
                found.setdefault(lane.base, 0)
        for lane, (following,) in zip(lanes, rows, strict=True):
            if following is None:
                found[lane.base] = max(found[lane.base], saved[lane.name])
        for lane, (following,) in zip(lanes, rows, strict=True):
            if following is not None:
                found[lane.base] = min(found.get(lane.base, following - 1), following - 1)
        return found

    async def checkpoint(self, lane: str | None = None) -> int:
        """The last position a lane (the first, if not named) published (``checkpoints``)."""
        name = lane or next(iter(self.lanes.values())).base
        return (await self.checkpoints())[name]

    async def dead_letters(
        self, lane: str | None = None
    ) -> list[tuple[int, str, int, str, int, str]]:
        """(position, stream, version, type, size, reason) of every event a lane set aside."""
        rows = await self.store.fetch(
            "SELECT position, stream_id, version, type, size, reason "
            "FROM relay_dead_letters WHERE name = %(name)s ORDER BY position",
            {"name": lane or next(iter(self.lanes))},
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]

    async def oldest_unpublished(self, lane: Lane, checkpoint: int) -> RecordedEvent | None:
        """The lane's first event after ``checkpoint`` in its partition (for the lag's age)."""
        if lane.category is None:
            oldest = await self.store.read_partition(lane.partition, checkpoint + 1, 1)
            return oldest[0] if oldest else None
        rows = await self.store.fetch(
            _READ_CATEGORIES,
            {
                "partition": lane.partition,
                "from_position": checkpoint + 1,
                "categories": [lane.category],
                "limit": 1,
            },
        )
        return None if rows[0][1] is None else rows_to_events([rows[0][1:]])[0]

    async def lag(self) -> int:
        """How many positions the bus is behind the store (for metrics): of the first
        lane, summed over the partitions."""
        base = next(iter(self.lanes.values())).base
        saved = await self.partition_checkpoints()
        heads = await self.store.head_positions()
        return sum(
            max(heads[lane.partition] - saved[lane.name], 0)
            for lane in self.lanes.values()
            if lane.base == base
        )


def _names(lanes: Sequence[Lane]) -> dict[str, list[Any]]:
    return {"names": [lane.name for lane in lanes], "tokens": [lane.token for lane in lanes]}
