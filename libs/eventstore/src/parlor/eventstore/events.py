"""The shapes that cross the store's boundary: events to append, events recorded, results.

Payloads are opaque bytes (protobuf, encoded by the service) so the store stays
game-agnostic and any language can read what it wrote.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from parlor.core.errors import AlreadyExists, InvalidArgument

NO_STREAM = 0
"""Expected version for creation: the stream must not exist yet (versions start at 1)."""

ANY_VERSION = -1
"""Expected version that skips the check: append after whatever is there."""

# <category>-<id>: the category names the kind of stream (a game type), the id one instance.
# Both end up as NATS subject tokens, so no dots, spaces, '*' or '>'.
_STREAM_ID = re.compile(r"^[a-z][a-z0-9_]*-[A-Za-z0-9_\-]{1,200}$")
_EVENT_TYPE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,199}$")

DEFAULT_MAX_EVENT_BYTES = 1024 * 1024
"""NATS's default max_payload: an event the bus would refuse is never appended."""

HEADER_ALLOWANCE = 4096
"""Room kept for the headers the relay publishes with an event (ids, type, metadata)."""


@dataclass(frozen=True, slots=True)
class Metadata:
    """Who and what caused an event: travels with it into the store and onto the bus."""

    command_id: str | None = None
    actor: str | None = None
    causation_id: str | None = None
    correlation_id: str | None = None
    extra: Mapping[str, str] = field(default_factory=dict)


NO_METADATA = Metadata()


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event a service wants to append; the store gives it a version and a position."""

    type: str
    data: bytes
    schema_version: int = 1
    metadata: Metadata = field(default_factory=Metadata)


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event as committed: its place in its stream (version) and in the store (position)."""

    stream_id: str
    version: int
    position: int
    type: str
    data: bytes
    schema_version: int
    metadata: Metadata
    recorded_at: datetime

    @property
    def message_id(self) -> str:
        """The bus deduplication id: the same event always gets the same one."""
        return f"{self.stream_id}:{self.version}"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A stream's state folded up to ``version``, encoded by the service; a cache, never a fact.

    Loading = this state + ``read_stream(stream_id, version + 1)``; replaying from
    zero must give the same. Change ``schema_version`` when the state's encoding
    changes and treat other versions as absent (snapshots are not upcast).
    """

    stream_id: str
    version: int
    type: str
    data: bytes
    schema_version: int = 1


def command_id_reused(stream_id: str) -> AlreadyExists:
    """The refusal of a known command id sent again with a different command."""
    return AlreadyExists(
        f"this command_id was already used in {stream_id} for a different command;"
        " a retry must repeat the command exactly, a new command needs a new id",
        reason="COMMAND_ID_REUSED",
    )


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append wrote; a retried command gets the first result, marked ``duplicate``."""

    stream_id: str
    first_version: int
    last_version: int
    first_position: int
    last_position: int
    duplicate: bool = False
    fingerprint: str | None = None
    """The fingerprint stored with the command id (``command_result`` only)."""
    events: tuple[RecordedEvent, ...] = field(default=(), compare=False, repr=False)
    """The appended events exactly as the store now holds them (what ``read_stream`` gives
    back, before any upcasting): no read-back needed. Empty for a duplicate and for
    ``command_result``, whose events were stored by an earlier append."""

    @property
    def recorded_at(self) -> datetime | None:
        """When the append committed (None for a duplicate)."""
        return self.events[0].recorded_at if self.events else None

    @property
    def positions(self) -> range:
        """Global positions of the appended events (contiguous: appends are serialised)."""
        return range(self.first_position, self.last_position + 1)

    @property
    def versions(self) -> range:
        return range(self.first_version, self.last_version + 1)


def stored_events(
    stream_id: str,
    events: Sequence[NewEvent],
    command_id: str | None,
    first_version: int,
    first_position: int,
    recorded_at: datetime,
) -> tuple[RecordedEvent, ...]:
    """Appended events as the store holds them: versions and positions are contiguous (an
    append is one statement under the append lock), the command id is on every event."""
    out = []
    for offset, new in enumerate(events):
        meta = new.metadata
        if command_id is None and meta == NO_METADATA:
            metadata = NO_METADATA
        else:
            metadata = Metadata(
                command_id, meta.actor, meta.causation_id, meta.correlation_id, dict(meta.extra)
            )
        out.append(
            RecordedEvent(
                stream_id,
                first_version + offset,
                first_position + offset,
                new.type,
                bytes(new.data),
                new.schema_version,
                metadata,
                recorded_at,
            )
        )
    return tuple(out)


def check_stream_id(stream_id: str) -> str:
    """Refuse ids that cannot become a NATS subject (``<category>-<id>``)."""
    if not _STREAM_ID.match(stream_id):
        raise InvalidArgument(
            f"stream id {stream_id!r} must look like '<category>-<id>' "
            "(category: lowercase letters, digits, '_'; id: letters, digits, '_' or '-')",
            reason="INVALID_STREAM_ID",
        )
    return stream_id


def check_event_type(event_type: str) -> str:
    if not _EVENT_TYPE.match(event_type):
        raise InvalidArgument(
            f"event type {event_type!r} must be a name like 'GameCreated' or "
            "'parlor.upwords.v1.GameCreated'",
            reason="INVALID_EVENT_TYPE",
        )
    return event_type


class EventLimit:
    """The largest event a store appends: its own limit, and the bus's max payload.

    The bus's is given as a number, or as a function read at each append
    (``lambda: bus.max_payload``): a bus opened before its server answered
    (``JetStreamBus.open``) knows the server's limit only once it has connected, and a
    number taken at start would keep nats-py's 1 MiB default under a server set smaller.
    """

    def __init__(self, max_bytes: int) -> None:
        self.own = max_bytes
        self._buses: list[Callable[[], int]] = []

    def limit_to(self, max_payload: int | Callable[[], int]) -> None:
        if callable(max_payload):
            self._buses.append(max_payload)
        else:
            self.own = min(self.own, max_payload)

    def __call__(self) -> int:
        if not self._buses:
            return self.own
        return min(self.own, *(bus() for bus in self._buses))


class EventSizeLimited:
    """A store's size limit on what it appends (``EventLimit``), shared by both stores."""

    _limit: EventLimit

    @property
    def max_event_bytes(self) -> int:
        """The largest event appended now: its own limit, or its bus's max payload if less."""
        return self._limit()

    @max_event_bytes.setter
    def max_event_bytes(self, value: int) -> None:
        self._limit.own = value

    def limit_events_to(self, max_payload: int | Callable[[], int]) -> None:
        """Append no event larger than ``max_payload``: the bus's, read from its server.
        A function (``lambda: bus.max_payload``) is read at each append, for a bus that
        may reach its server after this is said (``JetStreamBus.open``)."""
        self._limit.limit_to(max_payload)


def check_event_size(event: NewEvent, max_bytes: int) -> None:
    """Refuse an event the bus could not carry (``max_bytes``: its max payload).

    Checked at append time: a stored event the relay cannot publish would hold up every
    event after it.
    """
    meta = event.metadata
    texts = [meta.command_id, meta.actor, meta.causation_id, meta.correlation_id, event.type]
    texts += [t for kv in meta.extra.items() for t in kv]
    size = len(event.data) + sum(len(t.encode()) for t in texts if t) + HEADER_ALLOWANCE
    if size > max_bytes:
        raise InvalidArgument(
            f"a {event.type.rsplit('.', 1)[-1]} event of {size} bytes (headers included) is"
            f" larger than the {max_bytes} bytes the bus carries",
            reason="EVENT_TOO_LARGE",
            metadata={"size": str(size), "limit": str(max_bytes)},
        )


def split_stream_id(stream_id: str) -> tuple[str, str]:
    """``connect4x4-ab12`` -> ``("connect4x4", "ab12")``."""
    category, _, instance = stream_id.partition("-")
    return category, instance


def check_expected_version(expected_version: int) -> int:
    if expected_version < ANY_VERSION:
        raise InvalidArgument(
            f"expected version must be >= 0, NO_STREAM (0) or ANY_VERSION (-1), "
            f"got {expected_version}",
            reason="INVALID_EXPECTED_VERSION",
        )
    return expected_version
