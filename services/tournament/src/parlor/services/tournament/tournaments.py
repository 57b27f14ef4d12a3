"""Tournaments in the event store: ``tournament-<id>``, decided by ``parlor.tournamentrules``.

Each tournament is folded from its stream (cached per tournament, brought up to date from
the store before each decision) and a decision is appended at the version it was made on;
a conflict (another replica's driver, a join at the same moment) decides again on the new
state. A pairing's games are made in the same transaction: each table's ``MatchFormed`` in
``matchmaking-<game id>`` (its first and only event), which the game type's service makes
the game from exactly once, as it does a challenge's (``parlor.gamehost.pipeline.matches``).

The catalogue (every tournament this replica knows, for listings and the driver) is read
from the store's category index (``streams_touched``, in each partition of the store's order
from a position of its own: ``parlor.eventstore.cursors``), caught up at each ask: only the
tournaments with events since the last ask are read again.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parlor.accounts.codec import decode, encode
from parlor.core.errors import Conflict, Unavailable
from parlor.eventstore import EventStore, Metadata, NewEvent, PostgresEventStore, RecordedEvent
from parlor.eventstore.cursors import Cursor, heads, touched, widen
from parlor.eventstore.events import command_id_reused
from parlor.tournamentrules import EVENT_TYPES, TOURNAMENTS

CATEGORY = "tournament"
RETRIES = 16
EPOCH_MS = 1_790_000_000_000
"""Where a sped-up tournament clock (``PARLOR_TOURNAMENT_TIME_SCALE``) starts from: a fixed
moment, so every replica and every restart reads the same scaled time."""

State = Any
Command = Any
Event = Any


def new_id() -> str:
    """An unguessable id (tournaments, their games)."""
    return secrets.token_hex(16)


def stream_of(tournament_id: str) -> str:
    return f"{CATEGORY}-{tournament_id}"


def event_of(recorded: RecordedEvent) -> Event:
    return decode(dict(EVENT_TYPES), recorded.type, recorded.data)


def scaled_clock(scale: float, wall: Callable[[], float] = time.time) -> Callable[[], int]:
    """The tournaments' clock in ms: the wall clock, or (tests only) one running ``scale``
    times faster from ``EPOCH_MS``."""
    if scale == 1.0:
        return lambda: int(wall() * 1000)
    return lambda: EPOCH_MS + int((wall() * 1000 - EPOCH_MS) * scale)


@dataclass(frozen=True)
class Append:
    """Another stream's append made in the same transaction as a decision's."""

    stream_id: str
    events: tuple[NewEvent, ...]
    expected_version: int


Also = Callable[[State, Sequence[Event]], Sequence[Append]]
"""The appends a decision makes in other streams, from the state it was made on and its events."""


class Tournaments:
    """Tournaments over any event store (in memory for tests, PostgreSQL in service)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._cache: dict[str, tuple[State, int]] = {}
        self._catalogued: Cursor = ()
        """The store position the catalogue is caught up to, in each partition of its order."""
        self.changed: Callable[[str, int], None] = lambda tournament_id, version: None
        """Told of each append (WatchTournament's bells)."""

    async def load(self, tournament_id: str) -> tuple[State, int]:
        """The tournament's state and version as the store holds it now (version 0: none)."""
        stream = stream_of(tournament_id)
        state, version = self._cache.get(stream, (TOURNAMENTS.initial_state(), 0))
        for event in await self.store.read_stream(stream, version + 1):
            state, version = TOURNAMENTS.evolve(state, event_of(event)), event.version
        self._cache[stream] = (state, version)
        return state, version

    async def catalogue(self) -> dict[str, tuple[State, int]]:
        """Every tournament in the store, each as it is now."""
        head = await heads(self.store)
        after = widen(self._catalogued, len(head))
        # Only the tournaments with an event since the last ask are read again: the others'
        # cached states hold every event up to that ask's head, so they are as they are now
        # (each cached tournament used to be read at every ask, finished ones too).
        for stream in await touched(self.store, CATEGORY, after, head):
            await self.load(stream.removeprefix(f"{CATEGORY}-"))
        self._catalogued = head  # once every tournament it covers is read
        return {
            stream.removeprefix(f"{CATEGORY}-"): folded for stream, folded in self._cache.items()
        }

    async def execute(
        self,
        tournament_id: str,
        command: Callable[[State], Command | None],
        actor: str,
        command_id: str | None = None,
        fingerprint: str | None = None,
        also: Also | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> list[RecordedEvent]:
        """Decide ``command(state)`` (None: nothing to do) on the tournament as it is now and
        append what it decides, with ``also``'s appends in the same transaction; the events
        as stored. A command id already applied: the events it appended then."""
        stream = stream_of(tournament_id)
        if command_id is not None:
            known = await self.store.command_result(stream, command_id)
            if known is not None:
                if fingerprint and known.fingerprint and known.fingerprint != fingerprint:
                    raise command_id_reused(stream)
                versions = known.versions
                return await self.store.read_stream(stream, versions.start, versions.stop - 1)
        for _ in range(RETRIES):
            state, version = await self.load(tournament_id)
            decided = command(state)
            if decided is None:
                return []
            events = TOURNAMENTS.decide(state, decided)
            if not events:
                return []
            new = _new(events, actor, command_id, extra)
            others = list(also(state, events)) if also is not None else []
            try:
                stored = await self._write(stream, new, version, command_id, fingerprint, others)
            except Conflict:
                continue
            if stored:
                self.changed(tournament_id, stored[-1].version)
            return stored
        raise Unavailable(
            "the tournament is too busy right now; try again", reason="TOURNAMENT_BUSY"
        )

    async def _write(
        self,
        stream: str,
        events: list[NewEvent],
        version: int,
        command_id: str | None,
        fingerprint: str | None,
        others: list[Append],
    ) -> list[RecordedEvent]:
        if not others:
            result = await self.store.append(
                stream, events, version, command_id, fingerprint=fingerprint
            )
            return list(result.events)
        if isinstance(self.store, PostgresEventStore):
            async with self.store.engine.begin() as conn:
                result = await self.store.append(
                    stream, events, version, command_id, fingerprint=fingerprint, connection=conn
                )
                for a in others:
                    await self.store.append(
                        a.stream_id, a.events, a.expected_version, connection=conn
                    )
            return list(result.events)
        # The in-memory store: one loop; the tournament's append (the only one that may
        # conflict) goes first, so a conflict leaves nothing written.
        result = await self.store.append(
            stream, events, version, command_id, fingerprint=fingerprint
        )
        for a in others:
            await self.store.append(a.stream_id, a.events, a.expected_version)
        return list(result.events)


def _new(
    events: Sequence[Event], actor: str, command_id: str | None, extra: Mapping[str, str] | None
) -> list[NewEvent]:
    out = []
    for event in events:
        kind, data = encode(event)
        metadata = Metadata(command_id=command_id, actor=actor, extra=dict(extra or {}))
        out.append(NewEvent(kind, data, metadata=metadata))
    return out
