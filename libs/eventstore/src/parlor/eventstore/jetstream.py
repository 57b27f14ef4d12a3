"""The event bus on NATS JetStream (nats-py): file-backed stream, dedupe window, pull consumers.

A publish JetStream answers as a duplicate names the stream sequence of the message that
holds the id; ``publish_event`` reads that message (``STREAM.MSG.GET``) and raises
``ForeignDuplicate`` unless it is this event (see ``parlor.eventstore.bus``).
``check_stream`` gives the subject's last message (``STREAM.MSG.GET`` by subject) for the
relay to check, and ``message_before`` the messages under it, one sequence at a time.

**The stream keeps ``max_age`` seconds of messages** (``DEFAULT_MAX_AGE``, three days): the bus
is a transport and PostgreSQL the record, so the stream need not hold every event ever
published, and must not, or it fills NATS's storage and JetStream refuses every publish.
``ensure_stream`` sets it on a stream it creates and updates a stream that has another; a
stream this process's NATS user may not reconfigure (the deployed users may create the
stream, never update it) is used as it is, with a WARNING naming what differs, and
``check_stream`` says what ``max_age`` the stream really has (``StreamCheck.max_age``).

**The stream is kept on ``replicas`` servers** (``PARLOR_NATS_STREAM_REPLICAS``: 1, or 3 on
a 3-node cluster, so that the stream outlives a node), set and updated alike. A NATS that
cannot place that many (a server without a cluster takes 1 only; a cluster with fewer
JetStream servers up) makes no stream: ``ensure_stream`` raises ``Unavailable`` naming the
setting, and the health name ``parlor.bus`` stays NOT_SERVING, saying so, until NATS can.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, Header, StorageType, StreamConfig

from parlor.core.errors import InvalidArgument, Unavailable
from parlor.eventstore.bus import (
    MSG_ID,
    ConsumerLost,
    ForeignDuplicate,
    StreamCheck,
    StreamMessage,
    Subjects,
    decode_event,
    event_headers,
    message_size,
    same_message,
    subject_matches,
)
from parlor.eventstore.events import RecordedEvent
from parlor.eventstore.tracing import traced_publish
from parlor.telemetry.metrics import CONSUMER_HANDLED, CONSUMER_PENDING

log = logging.getLogger(__name__)

DUPLICATE_WINDOW = 600.0
"""Seconds JetStream remembers message ids; a relay replaying within it publishes nothing twice."""
DEFAULT_MAX_AGE = 72 * 3600.0
"""Seconds the stream keeps a message (``PARLOR_NATS_STREAM_MAX_AGE_HOURS``; 0: for ever): how long
a consumer may be away and still find every event it missed (see docs/architecture.md)."""


@dataclass(frozen=True)
class NatsCredentials:
    """Who this process is to NATS: a user and password, or a creds file (JWT and nkey
    seed), and the CA that signs NATS's TLS certificate (a ``tls://`` URL). Empty: none.

    Each service has a NATS user of its own whose permissions let it publish only its own
    events (see deploy/README.md), so a compromised pod cannot forge another's events.
    """

    user: str = ""
    password: str = ""
    creds_file: str = ""
    tls_ca_file: str = ""

    @classmethod
    def of(cls, settings: Any) -> NatsCredentials:
        """From settings with ``nats_user``, ``nats_password``, ``nats_creds_file`` and
        ``nats_tls_ca_file`` (the kit's BackendSettings)."""
        return cls(
            settings.nats_user,
            settings.nats_password,
            settings.nats_creds_file,
            settings.nats_tls_ca_file,
        )

    def options(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self.user:
            found["user"] = self.user
            found["password"] = self.password
        if self.creds_file:
            found["user_credentials"] = self.creds_file
        if self.tls_ca_file:
            tls = ssl.create_default_context(cafile=self.tls_ca_file)
            found["tls"] = tls
        return found


class JetStreamDelivery:
    """A JetStream message as a ``Delivery``."""

    def __init__(self, msg: Msg, consumer: str = "") -> None:
        self._msg = msg
        self._consumer = consumer

    @property
    def subject(self) -> str:
        return self._msg.subject

    @property
    def data(self) -> bytes:
        return self._msg.data

    @property
    def headers(self) -> Mapping[str, str]:
        return self._msg.headers or {}

    @property
    def message_id(self) -> str:
        msg_id = self.headers.get(MSG_ID)
        if msg_id:
            return msg_id
        meta = self._msg.metadata
        return f"{meta.stream}:{meta.sequence.stream}"

    @property
    def delivery_count(self) -> int:
        return self._msg.metadata.num_delivered

    def event(self) -> RecordedEvent | None:
        return decode_event(self.headers, self.data)

    async def ack(self) -> None:
        # Fire and forget: an ack lost on the way means one redelivery, which the
        # inbox recognises; waiting for the server's confirmation costs a round trip.
        await self._msg.ack()
        CONSUMER_HANDLED.labels(self._consumer, "ack").inc()

    async def nak(self, delay: float | None = None) -> None:
        await self._msg.nak(delay=delay)
        CONSUMER_HANDLED.labels(self._consumer, "nak").inc()


class JetStreamSubscription:
    """A bound durable pull consumer; what goes wrong it raises, for ``DurableConsumer`` to
    subscribe again (which makes the consumer again where the server lost it).

    A fetch from a consumer that is gone usually fails (``ServiceUnavailableError``: no
    responders), but an empty fetch alone cannot tell "nothing new" from "no consumer any
    more", so after empty fetches the consumer is looked up, at most every
    ``check_interval`` seconds, and ``ConsumerLost`` raised if the server does not have it.
    """

    def __init__(
        self,
        sub: nats.js.JetStreamContext.PullSubscription,
        bus: JetStreamBus,
        durable: str,
    ) -> None:
        self._sub = sub
        self._bus = bus
        self._durable = durable
        self._next_check = 0.0

    async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[JetStreamDelivery]:
        try:
            msgs = await self._sub.fetch(batch, timeout=max_wait)
        except TimeoutError:  # nats-py raises its own and asyncio's: "nothing yet", if connected
            if not self._bus.nc.is_connected:  # (nats-py's fetch waits out a reconnect)
                raise Unavailable("NATS is not connected", reason="BUS_UNAVAILABLE") from None
            CONSUMER_PENDING.labels(self._durable).set(0)
            await self._check_consumer()
            return []
        except nats.js.errors.NotFoundError as exc:
            raise ConsumerLost(self._durable, exc.description or "not found") from exc
        if msgs:  # what the server still holds after the last message it gave us
            CONSUMER_PENDING.labels(self._durable).set(msgs[-1].metadata.num_pending)
        return [JetStreamDelivery(m, self._durable) for m in msgs]

    async def _check_consumer(self) -> None:
        now = asyncio.get_running_loop().time()
        if now < self._next_check:
            return
        self._next_check = now + self._bus.consumer_check_interval
        try:
            await self._bus.js.consumer_info(self._bus.subjects.stream, self._durable)
        except nats.js.errors.NotFoundError as exc:  # the consumer, or its stream
            raise ConsumerLost(self._durable, exc.description or "not found") from exc
        except (nats.errors.Error, OSError, TimeoutError):
            return  # NATS is away: nothing to tell yet, the fetches will say

    async def close(self) -> None:
        """Stop fetching; the durable consumer stays on the server and resumes later."""
        with contextlib.suppress(Exception):
            await self._sub.unsubscribe()


def _duration(seconds: float | None, *, flag: bool = False) -> str:
    """Seconds as NATS's CLI takes them (``72h``, ``600s``); 0 or none is ``ever`` (``0``)."""
    if not seconds:
        return "0" if flag else "ever"
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    return f"{seconds:g}s"


def _replicas(count: int | None) -> str:
    """``1 replica``, ``3 replicas`` (none: JetStream's default, 1)."""
    count = count or 1
    return f"{count} replica{'s' if count != 1 else ''}"


def _servers(url: str) -> list[tuple[str, int]]:
    """(host, port) of every server in a NATS URL (``nats://a:4222,nats://b:4222``)."""
    found = []
    for part in url.split(","):
        parts = urlsplit(part.strip() if "://" in part else f"nats://{part.strip()}")
        found.append((parts.hostname or "127.0.0.1", parts.port or 4222))
    return found


async def _listening(url: str) -> bool:
    for host, port in _servers(url):
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 2.0)
        except (OSError, TimeoutError):
            continue
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
        return True
    return False


NO_RESPONDERS = "503"
"""The status of the reply NATS sends when nothing (no stream) took a request's subject."""
REPLICAS_REFUSED = frozenset({10074, 10005})
"""JetStream's ``err_code``s for a stream it cannot place on its replicas: more than 1 on a
server without a cluster (10074, status 500), no servers enough for them (10005, 400)."""
MAX_REPLICAS = 5
"""JetStream keeps a stream on 5 servers at most."""
STORAGE_USED_UP = frozenset({10002, 10023, 10047})
"""JetStream's ``err_code``s for a publish refused because storage is used up: the account's
limits (10002, status 400), the server's ``max_file_store`` (10023, 503; 10047, 500). A
refusal for now, not of the message: the relay waits and tries again (as the stream's
``max_age`` frees space) and sets nothing aside."""


class _Acks:
    """JetStream publishes and their acks, which come back to one inbox subscription of the
    connection, each to the future its reply subject names.

    What ``js.publish`` does, less per message: no NUID and random token per request, no
    ``wait_for`` (a waiter future, a timer and callbacks), no ack object; the same errors
    (no stream, the stream's refusal, a timeout). A new connection (``JetStreamBus._connect``
    after a failed one) gets a new ``_Acks``; on a reconnect nats-py subscribes again.
    """

    def __init__(self, nc: Client) -> None:
        self.nc = nc
        self.prefix = f"{nc.new_inbox()}."
        self._waiting: dict[str, asyncio.Future[Msg]] = {}
        self._next = 0
        self._subscribed: asyncio.Task[Any] | None = None

    async def _on_ack(self, msg: Msg) -> None:
        future = self._waiting.pop(msg.subject[len(self.prefix) :], None)
        if future is not None and not future.done():
            future.set_result(msg)

    def _subscription(self) -> asyncio.Future[Any]:
        """The inbox subscription, made on first use (and again if making it failed): its
        SUB goes out before any publish that waits for it, on the same connection."""
        made = self._subscribed
        if made is None or (made.done() and (made.cancelled() or made.exception() is not None)):
            made = self._subscribed = asyncio.ensure_future(
                self.nc.subscribe(self.prefix + "*", cb=self._on_ack)
            )
        return made

    async def publish(
        self, subject: str, data: bytes, headers: dict[str, str] | None, within: float
    ) -> dict[str, Any]:
        """Publish and wait ``within`` seconds for JetStream's ack (``stream``, ``seq`` and
        ``duplicate`` if the stream had the id already)."""
        subscribed = self._subscription()
        token = str(self._next)
        self._next += 1
        future: asyncio.Future[Msg] = asyncio.get_running_loop().create_future()
        self._waiting[token] = future
        try:
            async with asyncio.timeout(within):
                if not subscribed.done():
                    await asyncio.shield(subscribed)
                subscribed.result()  # a subscription that failed fails the publish
                await self.nc.publish(subject, data, reply=self.prefix + token, headers=headers)
                msg = await future
        except TimeoutError:
            raise nats.errors.TimeoutError from None
        finally:
            self._waiting.pop(token, None)
        if msg.headers and msg.headers.get(Header.STATUS) == NO_RESPONDERS:
            raise nats.js.errors.NoStreamResponseError
        answer: dict[str, Any] = json.loads(msg.data)
        if "error" in answer:
            raise nats.js.errors.APIError.from_error(answer["error"])
        return answer


class JetStreamBus:
    """``Bus`` on NATS JetStream; ``await JetStreamBus.connect(url)``, ``close()`` at exit.

    ``JetStreamBus.open(url)`` is for services: it returns at once even when NATS is not
    there yet, keeps trying with backoff, and sets ``ready`` when connected (streams made).
    """

    def __init__(
        self,
        nc: Client,
        subjects: Subjects | None = None,
        *,
        publish_timeout: float = 2.0,
        duplicate_window: float = DUPLICATE_WINDOW,
        max_age: float = DEFAULT_MAX_AGE,
        replicas: int = 1,
        consumer_check_interval: float = 5.0,
    ) -> None:
        self.nc = nc
        self.consumer_check_interval = consumer_check_interval
        self.js = nc.jetstream()
        self.subjects = subjects or Subjects()
        self.publish_timeout = publish_timeout
        self.duplicate_window = duplicate_window
        self.max_age = max_age
        self.replicas = replicas
        self.ready = asyncio.Event()
        self._connections = 0
        self._opening: asyncio.Task[None] | None = None
        self._credentials = NatsCredentials()
        self._acks: _Acks | None = None  # the publishes' ack inbox, on ``nc``
        self._closed = False
        if nc.is_connected:
            self._connections = 1
            self.ready.set()

    @classmethod
    async def connect(
        cls,
        url: str,
        subjects: Subjects | None = None,
        *,
        credentials: NatsCredentials | None = None,
        **options: Any,
    ) -> JetStreamBus:
        """Connect now (and keep reconnecting forever if NATS goes away later).

        Credentials NATS refuses fail the connect at once (Unavailable), instead of
        being retried forever as an unreachable server is.
        """
        bus = cls(Client(), subjects, **options)
        bus._credentials = credentials or NatsCredentials()
        await bus._connect(url)
        bus.ready.set()
        return bus

    @classmethod
    async def open(
        cls,
        url: str,
        subjects: Subjects | None = None,
        *,
        credentials: NatsCredentials | None = None,
        max_backoff: float = 5.0,
        **options: Any,
    ) -> JetStreamBus:
        """Connect now if NATS answers, else in the background with backoff (see ``ready``)."""
        bus = cls(Client(), subjects, **options)
        bus._credentials = credentials or NatsCredentials()
        if await _listening(url):
            with contextlib.suppress(Unavailable):
                await bus._connect(url)
                await bus.ensure_streams()
                bus.ready.set()
                return bus
        bus._opening = asyncio.create_task(bus._keep_opening(url, max_backoff))
        return bus

    async def _keep_opening(self, url: str, max_backoff: float) -> None:
        delay = 0.1
        while True:
            if await _listening(url):
                try:
                    if not self.nc.is_connected:
                        await self._connect(url)
                    await self.ensure_streams()
                    self.ready.set()
                    log.info("NATS at %s answers", url)
                    return
                except (Unavailable, nats.errors.Error, OSError, TimeoutError) as exc:
                    log.warning("NATS at %s not ready (%s); retrying", url, exc)
            else:
                log.warning("NATS at %s not listening; retrying in %.1f s", url, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, max_backoff)

    async def _connect(self, url: str) -> None:
        connecting = True

        async def reconnected() -> None:
            self._connections += 1

        async def on_error(error: Exception) -> None:
            refused = isinstance(error, nats.errors.AuthorizationError) or (
                "authorization violation" in str(error).lower()
            )
            if connecting and refused:
                raise error
            log.warning("NATS: %s", error or type(error).__name__)

        try:
            await asyncio.wait_for(
                self.nc.connect(
                    # nats-py reads a string as one server: a list of them is split here
                    [server.strip() for server in url.split(",") if server.strip()],
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.25,  # type: ignore[arg-type]
                    connect_timeout=2,
                    name="parlor-eventstore",
                    reconnected_cb=reconnected,
                    error_cb=on_error,
                    **self._credentials.options(),
                ),
                10.0,
            )
            connecting = False
        except Exception as exc:
            with contextlib.suppress(Exception):
                await self.nc.close()
            self.nc = Client()
            self.js = self.nc.jetstream()
            raise Unavailable(
                f"NATS at {url} is unavailable ({type(exc).__name__})", reason="BUS_UNAVAILABLE"
            ) from exc
        self.js = self.nc.jetstream()
        self._connections += 1

    @property
    def connections(self) -> int:
        return self._connections

    @property
    def max_payload(self) -> int:
        """The largest message the NATS server takes (its max_payload, 1 MiB by default)."""
        return int(self.nc.max_payload)

    @property
    def closed(self) -> bool:
        # close() only: the client is closed and made again while NATS is being reached
        return self._closed

    async def close(self) -> None:
        self._closed = True
        if self._opening is not None:
            self._opening.cancel()
            with contextlib.suppress(BaseException):
                await self._opening
        with contextlib.suppress(Exception):
            await self.nc.close()

    @property
    def connected(self) -> bool:
        return self.ready.is_set() and self.nc.is_connected and not self._closed

    def _require_connected(self) -> None:
        if not self.ready.is_set():
            raise Unavailable("NATS has not answered yet", reason="BUS_UNAVAILABLE")

    async def ensure_streams(self) -> None:
        await self.ensure_stream(self.subjects.stream, [self.subjects.all()])

    def stream_config(self, name: str, subjects: Sequence[str]) -> StreamConfig:
        """The stream as this bus makes it: file storage, its dedupe window (no longer than
        ``max_age``: JetStream requires it), ``max_age`` and ``replicas``."""
        window = self.duplicate_window
        if self.max_age > 0:
            window = min(window, self.max_age)
        return StreamConfig(
            name=name,
            subjects=list(subjects),
            storage=StorageType.FILE,
            duplicate_window=window,
            max_age=self.max_age,
            num_replicas=self.replicas,
        )

    async def ensure_stream(self, name: str, subjects: Sequence[str]) -> None:
        """Create the stream, or update its subjects, dedupe window, ``max_age`` and replicas;
        safe to repeat.

        An update NATS does not take (the deployed users may create the stream, never
        reconfigure it) leaves the stream as it is, with a WARNING naming what differs, if
        it holds the subjects; else the stream is unusable (``Unavailable``). So is a stream
        NATS cannot place on ``replicas`` servers (``Unavailable`` naming the setting).
        """
        config = self.stream_config(name, subjects)
        try:
            try:
                await self.js.add_stream(config)
                return
            except nats.js.errors.APIError as exc:
                if exc.err_code in REPLICAS_REFUSED:
                    raise self._replicas_refused(name, exc) from exc
                if not isinstance(exc, nats.js.errors.BadRequestError):
                    raise
                # there already, configured otherwise
            try:
                await self.js.update_stream(config)
                return
            except (nats.errors.Error, OSError, TimeoutError) as exc:
                refused: Exception = exc
            found = (await self.js.stream_info(name)).config
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            raise Unavailable(
                f"NATS did not make the stream {name} ({type(exc).__name__})",
                reason="BUS_UNAVAILABLE",
            ) from exc
        held = found.subjects or ()
        if not all(any(subject_matches(h, subject) for h in held) for subject in subjects):
            raise Unavailable(
                f"the stream {name} does not hold {', '.join(subjects)} and NATS did not "
                f"update it ({type(refused).__name__})",
                reason="BUS_UNAVAILABLE",
            )
        placing = (
            isinstance(refused, nats.js.errors.APIError) and refused.err_code in REPLICAS_REFUSED
        )
        log.warning(
            "the stream %s keeps messages for %s (dedupe window %s) on %s, not for %s (%s) "
            "on %s as configured; NATS did not update it (%s)%s: an operator changes it with a "
            "NATS login that may (nats stream edit %s --max-age %s --dupe-window %s "
            "--replicas %d)",
            name,
            _duration(found.max_age),
            _duration(found.duplicate_window),
            _replicas(found.num_replicas),
            _duration(config.max_age),
            _duration(config.duplicate_window),
            _replicas(config.num_replicas),
            str(refused) or type(refused).__name__,
            f"; PARLOR_NATS_STREAM_REPLICAS={self.replicas} is more than NATS can place"
            if placing
            else "",
            name,
            _duration(config.max_age, flag=True),
            _duration(config.duplicate_window, flag=True),
            config.num_replicas or 1,
            extra={"stream": name},
        )

    def _replicas_refused(self, name: str, refused: nats.js.errors.APIError) -> Unavailable:
        return Unavailable(
            f"NATS cannot keep the stream {name} on {_replicas(self.replicas)} "
            f"(PARLOR_NATS_STREAM_REPLICAS={self.replicas}): {refused.description} "
            f"({refused.code}/{refused.err_code}); the setting must be at most the JetStream "
            "servers of NATS's cluster that are up, 1 for a NATS without a cluster",
            reason="BUS_UNAVAILABLE",
        )

    async def check_stream(self, subject: str) -> StreamCheck:
        self._require_connected()
        stream = self.subjects.stream
        made = False
        try:
            try:
                info = await self.js.stream_info(stream)
            except nats.js.errors.NotFoundError:
                await self.ensure_streams()
                info = await self.js.stream_info(stream)
                made = True
            try:
                raw = await self.js.get_last_msg(stream, subject)
                last: StreamMessage | None = StreamMessage(
                    int(raw.seq or 0), raw.subject or "", raw.data or b"", raw.headers or {}
                )
            except nats.js.errors.NotFoundError:
                last = None
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            raise Unavailable(
                f"NATS did not describe the stream {stream} ({type(exc).__name__})",
                reason="BUS_UNAVAILABLE",
            ) from exc
        created = info.created.isoformat() if info.created is not None else ""
        return StreamCheck(
            created=created, last=last, made=made, max_age=float(info.config.max_age or 0.0)
        )

    async def message_before(
        self, subject: str, sequence: int, within: int
    ) -> StreamMessage | None:
        # One STREAM.MSG.GET a sequence: JetStream finds a subject's next message, not its
        # previous one. Only a relay that met a forgery walks back, ``within`` at most.
        stream = self.subjects.stream
        for seq in range(sequence - 1, max(sequence - within, 1) - 1, -1):
            found = await self._message_at(stream, seq)
            if found is not None and subject_matches(subject, found[0]):
                return StreamMessage(seq, *found)
        return None

    @traced_publish
    async def publish_event(self, event: RecordedEvent, *, message_id: str | None = None) -> bool:
        subject = self.subjects.for_event(event)
        headers = event_headers(event)
        if message_id is not None:
            headers[MSG_ID] = message_id
        answer = await self._send(subject, event.data, headers)
        if not answer.get("duplicate"):
            return True
        # A claim: whoever could publish on the subject may have taken this id first.
        sequence = int(answer.get("seq", 0))
        found = await self._message_at(self.subjects.stream, sequence)
        if found is None:
            raise ForeignDuplicate(headers[MSG_ID], sequence, "no message")
        stored_subject, stored_data, stored_headers = found
        if not same_message(
            subject, event.data, headers, stored_subject, stored_data, stored_headers
        ):
            raise ForeignDuplicate(headers[MSG_ID], sequence, "another message")
        return False

    async def _message_at(
        self, stream: str, sequence: int
    ) -> tuple[str, bytes, Mapping[str, str]] | None:
        """(subject, data, headers) of the stream's message ``sequence``; None if none is."""
        try:
            msg = await self.js.get_msg(stream, sequence)
        except nats.js.errors.NotFoundError:
            return None
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            raise Unavailable(
                f"NATS did not give message {sequence} of {stream} ({type(exc).__name__})",
                reason="BUS_UNAVAILABLE",
            ) from exc
        return msg.subject or "", msg.data or b"", msg.headers or {}

    async def publish(
        self,
        subject: str,
        data: bytes,
        headers: Mapping[str, str] | None = None,
        message_id: str | None = None,
    ) -> bool:
        all_headers = dict(headers or {})
        if message_id is not None:
            all_headers[MSG_ID] = message_id
        answer = await self._send(subject, data, all_headers)
        return not answer.get("duplicate")

    async def _send(self, subject: str, data: bytes, all_headers: dict[str, str]) -> dict[str, Any]:
        """Publish; JetStream's ack, with the errors the ``Bus`` contract names."""
        self._require_connected()
        size = message_size(data, all_headers)
        if size > self.nc.max_payload:
            # The server would drop the connection over it: refuse before sending.
            raise InvalidArgument(
                f"a {size}-byte message exceeds NATS's max payload ({self.nc.max_payload})",
                reason="BUS_REFUSED",
            )
        acks = self._acks
        if acks is None or acks.nc is not self.nc:
            acks = self._acks = _Acks(self.nc)
        try:
            return await acks.publish(subject, data, all_headers or None, self.publish_timeout)
        except nats.js.errors.NoStreamResponseError as exc:
            raise Unavailable(f"NATS has no stream for {subject}", reason="STREAM_MISSING") from exc
        except nats.js.errors.APIError as exc:
            refused = exc.code is not None and 400 <= exc.code < 500
            if refused and exc.err_code not in STORAGE_USED_UP:
                raise InvalidArgument(
                    f"JetStream refused the message ({exc.description})", reason="BUS_REFUSED"
                ) from exc
            raise Unavailable(
                f"NATS did not take the message ({exc.description or type(exc).__name__}, "
                f"{exc.code}/{exc.err_code})",
                reason="BUS_UNAVAILABLE",
            ) from exc
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            raise Unavailable(
                f"NATS did not take the message ({type(exc).__name__})", reason="BUS_UNAVAILABLE"
            ) from exc

    async def subscribe(
        self,
        durable: str,
        filter_subject: str,
        *,
        ack_wait: float = 30.0,
        max_deliver: int = -1,
    ) -> JetStreamSubscription:
        self._require_connected()
        config = ConsumerConfig(
            durable_name=durable,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=ack_wait,
            max_deliver=max_deliver,
            filter_subject=filter_subject,
        )
        stream = self.subjects.stream
        try:
            try:
                sub = await self.js.pull_subscribe(
                    filter_subject, durable=durable, stream=stream, config=config
                )
            except nats.js.errors.NotFoundError:
                # The stream is gone (NATS lost its store): make it, as the relay would.
                await self.ensure_streams()
                sub = await self.js.pull_subscribe(
                    filter_subject, durable=durable, stream=stream, config=config
                )
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            raise Unavailable(
                f"NATS did not make the consumer {durable} ({type(exc).__name__})",
                reason="BUS_UNAVAILABLE",
            ) from exc
        return JetStreamSubscription(sub, self, durable)
