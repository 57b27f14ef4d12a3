"""The relay (transactional outbox): every committed event reaches the bus, once, in order.

It follows the store's global order from a checkpoint kept in PostgreSQL and
publishes each event with ``Nats-Msg-Id = <stream>:<version>``, so anything
replayed after a crash (published, not yet checkpointed) is dropped by
JetStream's dedupe window. A LISTEN doorbell wakes it within milliseconds of a
commit; ``poll_interval`` is only the safety net.

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

**An event the bus refuses** (over NATS's max payload, say) is set aside in
``relay_dead_letters`` (with ``parlor_relay_dead_letters_total`` and an ERROR log)
and the relay goes on with the next event; the event stays in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from prometheus_client import Counter

from parlor.core.errors import InvalidArgument, Unavailable
from parlor.eventstore.bus import Bus
from parlor.eventstore.doorbell import Doorbell
from parlor.eventstore.events import RecordedEvent
from parlor.eventstore.postgres import PostgresEventStore
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
    "Events the bus refused (too large, say), set aside in relay_dead_letters.",
    ["relay"],
)
LEADERSHIPS = Counter(
    "parlor_relay_leaderships_total", "Times a relay replica took the lease.", ["relay"]
)

_SERVER_KEEPALIVES = (
    ("tcp_keepalives_idle", 10),
    ("tcp_keepalives_interval", 5),
    ("tcp_keepalives_count", 3),
)

_ACQUIRE = (
    "INSERT INTO relay_leases (name, holder, token, expires_at) "
    "VALUES (%(name)s, %(holder)s, 1, now() + make_interval(secs => %(secs)s)) "
    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
    "token = relay_leases.token + 1, expires_at = excluded.expires_at "
    "WHERE relay_leases.expires_at <= now() OR relay_leases.holder = excluded.holder "
    "RETURNING token"
)
_RENEW = (
    "UPDATE relay_leases SET expires_at = now() + make_interval(secs => %(secs)s) "
    "WHERE name = %(name)s AND token = %(token)s RETURNING token"
)
_RELEASE = "UPDATE relay_leases SET expires_at = now() WHERE name = %(name)s AND token = %(token)s"
_FENCE = "EXISTS (SELECT 1 FROM relay_leases l WHERE l.name = %(name)s AND l.token = %(token)s)"
_SAVE_CHECKPOINT = (
    "UPDATE relay_checkpoints SET position = greatest(position, %(position)s), "
    "published_position = greatest(published_position, %(published)s), updated_at = now() "
    f"WHERE name = %(name)s AND {_FENCE} RETURNING position"
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
    "SELECT %(name)s, %(position)s, %(stream_id)s, %(version)s, %(type)s, %(size)s, "
    f"%(reason)s, now() WHERE {_FENCE} ON CONFLICT (name, position) DO NOTHING"
)


class LeaseLost(Exception):
    """Another replica holds the relay's lease now: stop publishing, touch nothing."""


class _Reverify(Exception):
    """The stream may have changed under the relay (no stream, a reconnection): check it."""


def keep(event: RecordedEvent) -> RecordedEvent | None:
    """The default ``redact``: publish every event as it is."""
    return event


class Relay:
    """Publishes the store's events to the bus; run one per service replica, one leads."""

    def __init__(
        self,
        store: PostgresEventStore,
        bus: Bus,
        *,
        name: str = "default",
        redact: Redact = keep,
        subject: str | None = None,
        batch_size: int = 500,
        poll_interval: float = 1.0,
        takeover_interval: float = 0.5,
        max_backoff: float = 2.0,
        window: int = 64,
        lease_seconds: float = 6.0,
        renew_interval: float | None = None,
        verify_interval: float = 10.0,
    ) -> None:
        self.store = store
        self.bus = bus
        self.name = name
        self.redact = redact
        # The subjects this relay publishes on: where it looks for its last event on the stream.
        self.subject = subject or bus.subjects.all()
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.takeover_interval = takeover_interval
        self.max_backoff = max_backoff
        self.window = window
        self.lease_seconds = lease_seconds
        self.renew_interval = renew_interval or lease_seconds / 3
        self.verify_interval = verify_interval
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.is_leader = False
        self.token = 0
        self.published = 0
        self.rebuilds = 0
        self.session_pid = 0  # the backend pid of this replica's relay connection
        self._task: asyncio.Task[None] | None = None
        self._valid_until = 0.0
        self._renew_due = 0.0
        self._verify_due = 0.0
        self._verified_connections = -1
        self._checkpoint = 0
        self._published_position = 0
        self._stream_created: str | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self.run(), name=f"parlor-relay-{self.name}")

    async def stop(self) -> None:
        """Stop publishing and release leadership (another replica takes over)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    async def run(self) -> None:
        """Wait for the lease, lead until it is lost, repeat; never returns."""
        while True:
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
                    self.is_leader = True
                    LEADERSHIPS.labels(self.name).inc()
                    log.info("relay %s leads (lease token %d)", self.name, self.token)
                    await self._lead(conn)
                finally:
                    was_leader, self.is_leader = self.is_leader, False
                    if was_leader:
                        with contextlib.suppress(Exception):
                            # Hand over at once rather than after the lease runs out.
                            await asyncio.wait_for(
                                conn.execute(_RELEASE, {"name": self.name, "token": self.token}),
                                1.0,
                            )
                    with contextlib.suppress(Exception):
                        await conn.close()
            except asyncio.CancelledError:
                raise
            except LeaseLost as exc:
                log.warning("relay %s lost its lease: %s", self.name, exc)
                await asyncio.sleep(self.takeover_interval)
            except Exception as exc:
                log.warning("relay %s stepped down: %s", self.name, exc)
                await asyncio.sleep(self.takeover_interval)

    async def _wait_for_lease(self, conn: Connection) -> None:
        params = {"name": self.name, "holder": self.holder, "secs": self.lease_seconds}
        while True:
            sent = asyncio.get_running_loop().time()
            row = await (await conn.execute(_ACQUIRE, params)).fetchone()
            if row is not None:
                self.token = int(row[0])
                self._leased(sent)
                return
            await asyncio.sleep(self.takeover_interval)

    def _leased(self, sent: float) -> None:
        # The database counts the lease from when it got the statement, after ``sent``:
        # counting from ``sent``, with a margin for clock rates, errs on the safe side.
        self._valid_until = sent + self.lease_seconds * 0.75
        self._renew_due = sent + self.renew_interval

    async def _renew(self, conn: Connection) -> None:
        sent = asyncio.get_running_loop().time()
        row = await (
            await conn.execute(
                _RENEW, {"name": self.name, "token": self.token, "secs": self.lease_seconds}
            )
        ).fetchone()
        if row is None:
            raise LeaseLost(f"token {self.token} is no longer the lease's")
        self._leased(sent)

    async def _hold_lease(self, conn: Connection) -> None:
        """Renew when due; never go on (publish) on a lease the local clock says has run out."""
        now = asyncio.get_running_loop().time()
        while now >= self._renew_due or now >= self._valid_until:
            await self._renew(conn)
            now = asyncio.get_running_loop().time()

    async def _fenced(self, conn: Connection, sql: str, **params: object) -> None:
        row = await (
            await conn.execute(sql, {"name": self.name, "token": self.token, **params})
        ).fetchone()
        if row is None:
            raise LeaseLost(f"token {self.token} is no longer the lease's")

    async def _lead(self, conn: Connection) -> None:
        await self._load_checkpoint(conn)
        self._verified_connections = -1
        backoff = 0.05
        async with Doorbell(self.store.url) as bell:
            while True:
                await self._hold_lease(conn)
                loop_now = asyncio.get_running_loop().time()
                if self.bus.connections != self._verified_connections or (
                    loop_now >= self._verify_due
                ):
                    if not await self.verify(conn):
                        await asyncio.sleep(backoff)
                        backoff = min(backoff * 2, self.max_backoff)
                        continue
                    backoff = 0.05
                bell.clear()
                batch = await self.store.read_all(self._checkpoint + 1, self.batch_size)
                if batch:
                    try:
                        await self.publish_batch(batch, conn)
                    except _Reverify:
                        self._verified_connections = -1
                        continue
                    self._checkpoint = batch[-1].position
                    await self.save_checkpoint(conn, self._checkpoint)
                    if len(batch) == self.batch_size:
                        continue
                now = asyncio.get_running_loop().time()
                wait = min(self.poll_interval, self._renew_due - now, self._verify_due - now)
                await bell.wait(max(wait, 0.01))

    async def verify(self, conn: Connection) -> bool:
        """Check the stream still holds what this relay published; rebuild it if not.

        False if the bus could not be asked (it is away: try again later).
        """
        connections = self.bus.connections
        try:
            check = await self.bus.check_stream(self.subject)
        except Unavailable as exc:
            log.warning("relay %s cannot check the stream (%s); retrying", self.name, exc)
            return False
        known = self._stream_created
        resume: int | None = None
        if known is not None and check.created != known:
            why, resume = "the stream was lost and made again", 0
        elif check.last_position < self._published_position:
            why, resume = (
                f"the stream's last event is at position {check.last_position}, "
                f"behind the {self._published_position} published",
                check.last_position,
            )
        if resume is not None:
            await self._fenced(conn, _RESET_CHECKPOINT, position=resume, created=check.created)
            self._checkpoint = self._published_position = resume
            self.rebuilds += 1
            STREAM_REBUILDS.labels(self.name).inc()
            log.warning(
                "relay %s: %s; republishing from the store after position %d",
                self.name,
                why,
                resume,
                extra={"relay": self.name, "resume_after": resume},
            )
        elif check.created != known:
            await self._fenced(conn, _REMEMBER_STREAM, created=check.created)
        self._stream_created = check.created
        self._verified_connections = connections
        self._verify_due = asyncio.get_running_loop().time() + self.verify_interval
        return True

    async def publish_batch(self, batch: Sequence[RecordedEvent], conn: Connection) -> None:
        """Publish in order, ``window`` at a time; while the bus is down, retry from the gap.

        The publishes of a window leave in order on one NATS connection, so what
        JetStream stored is a prefix of it; the rest is sent again (dedupe drops repeats).
        An event the bus refuses is set aside as a dead letter and the rest go on.
        """
        outgoing = [(event, out) for event in batch if (out := self.redact(event)) is not None]
        start, backoff = 0, 0.05
        while start < len(outgoing):
            await self._hold_lease(conn)
            if self.bus.connections != self._verified_connections:
                raise _Reverify
            window = outgoing[start : start + self.window]
            results = await asyncio.gather(
                *(self.bus.publish_event(out) for _, out in window), return_exceptions=True
            )
            done = 0
            for result in results:
                if isinstance(result, BaseException):
                    break
                done += 1
            if done:
                self.published += done
                fresh = [e for (e, _), r in zip(window[:done], results, strict=False) if r is True]
                if fresh:
                    # Only what the stream took as new: a duplicate may be an id the dedupe
                    # window remembers for a message no longer there (a purged stream).
                    self._published_position = fresh[-1].position
            start += done
            if done == len(window):
                backoff = 0.05
                continue
            failure = results[done]
            assert isinstance(failure, BaseException)
            if isinstance(failure, InvalidArgument):
                await self._dead_letter(conn, *outgoing[start], failure)
                start += 1
                continue
            if not isinstance(failure, Unavailable):
                raise failure
            if failure.reason == "STREAM_MISSING":
                raise _Reverify
            log.warning("relay %s: bus unavailable (%s); retrying", self.name, failure)
            first_unpublished = outgoing[start][0].position
            if first_unpublished > 1:
                await self.save_checkpoint(conn, first_unpublished - 1)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self.max_backoff)

    async def _dead_letter(
        self, conn: Connection, event: RecordedEvent, out: RecordedEvent, failure: InvalidArgument
    ) -> None:
        await conn.execute(
            _DEAD_LETTER,
            {
                "name": self.name,
                "token": self.token,
                "position": event.position,
                "stream_id": event.stream_id,
                "version": event.version,
                "type": event.type,
                "size": len(out.data),
                "reason": failure.message[:500],
            },
        )
        DEAD_LETTERS.labels(self.name).inc()
        log.error(
            "relay %s: the bus refused %s (position %d, %d bytes): %s; set aside as a dead letter",
            self.name,
            event.message_id,
            event.position,
            len(out.data),
            failure.message,
            extra={"relay": self.name, "message_id": event.message_id},
        )

    async def _load_checkpoint(self, conn: Connection) -> int:
        await conn.execute(
            "INSERT INTO relay_checkpoints (name, position, updated_at) VALUES (%s, 0, now()) "
            "ON CONFLICT (name) DO NOTHING",
            (self.name,),
        )
        row = await (
            await conn.execute(
                "SELECT position, published_position, stream_created FROM relay_checkpoints "
                "WHERE name = %s",
                (self.name,),
            )
        ).fetchone()
        assert row is not None
        self._checkpoint, self._published_position, self._stream_created = row
        return self._checkpoint

    async def save_checkpoint(self, conn: Connection, position: int) -> None:
        """Remember the last position handled; never moves back; only with the lease's token."""
        await self._fenced(
            conn, _SAVE_CHECKPOINT, position=position, published=self._published_position
        )

    async def checkpoint(self) -> int:
        """The last position this relay published (for monitoring and tests)."""
        async with await psycopg.AsyncConnection.connect(
            libpq_url(self.store.url), autocommit=True
        ) as conn:
            row = await (
                await conn.execute(
                    "SELECT position FROM relay_checkpoints WHERE name = %s", (self.name,)
                )
            ).fetchone()
        return int(row[0]) if row is not None else 0

    async def dead_letters(self) -> list[tuple[int, str, int, str, int, str]]:
        """(position, stream, version, type, size, reason) of every event set aside."""
        async with await psycopg.AsyncConnection.connect(
            libpq_url(self.store.url), autocommit=True
        ) as conn:
            rows = await (
                await conn.execute(
                    "SELECT position, stream_id, version, type, size, reason "
                    "FROM relay_dead_letters WHERE name = %s ORDER BY position",
                    (self.name,),
                )
            ).fetchall()
        return [tuple(r) for r in rows]  # type: ignore[misc]

    async def lag(self) -> int:
        """How many positions the bus is behind the store (for metrics)."""
        return await self.store.head_position() - await self.checkpoint()
