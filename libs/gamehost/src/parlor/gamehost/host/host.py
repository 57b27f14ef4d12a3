"""A game as an event stream: load by replay, decide, append with optimistic concurrency.

``GameHost`` is the one place where rule engines meet the event store. A
command is decided against the latest state and appended with the version it
was decided on; if another writer got there first (``Conflict``) the state is
refreshed and the command decided again, so concurrent players (Take Four's
simultaneous play) are never lost and never applied twice. A command id makes
a command idempotent: a retry returns the first outcome and appends nothing,
even if the game has moved on since. Command ids are scoped to their actor, as
idempotency keys are to an account: another actor sending an id already used in
the game is refused (``ALREADY_EXISTS COMMAND_ID_TAKEN``) and learns nothing of
the first command's outcome.

Its reads are ``GameRecord``'s and ``GameFollowing``'s; a record's values, ids and
``Overtaken``, ``parlor.gamehost.record.recorded``'s (given here too).

A command reaches the host as a value (``parlor.gamehost.record.command``: ``GameHost.decide``),
which makes the engine's command on the state it is decided on. One whose timeouts came
due before it is refused here (``Overtaken``) with nothing appended: the pipeline appends
those timeouts as the platform's own command (``append_timeouts``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from parlor.core.errors import (
    AlreadyExists,
    Conflict,
    FailedPrecondition,
    InvalidArgument,
    ParlorError,
    PermissionDenied,
)
from parlor.eventstore import NO_STREAM, Metadata, NewEvent
from parlor.gamehost.host.following import GameFollowing
from parlor.gamehost.host.observe import observed_decide
from parlor.gamehost.record.command import Answer, Given, Issued
from parlor.gamehost.record.recorded import Outcome, Overtaken, Recorded
from parlor.gamehost.table.clocks import Preempted, Stamp, Timed
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.ids import SystemCommandId, check_command_id, system_command_id

__all__ = [
    "GIVEN_AFTER",
    "STATE_REFUSALS",
    "WALKED_AWAY",
    "GameHost",
    "Outcome",
    "Overtaken",
    "Recorded",
]

S = TypeVar("S", bound=Table[Any])
C = TypeVar("C")
E = TypeVar("E")

STATE_REFUSALS = (FailedPrecondition, PermissionDenied, InvalidArgument)
"""Refusals that depend on the game's state, so a stale cached state could cause them.
Outages (``Unavailable``) and the rest are not worth deciding again."""


GIVEN_AFTER = timedelta(milliseconds=1)
"""A seat's command decided this long or longer after it arrived (the dictionary asked)
records when it was decided too (``Stamp.given``): the turn it gives starts then. Below
it, the time it arrived serves for both (no metadata, no fold again)."""

WALKED_AWAY = timedelta(hours=24)
"""How long an untimed game with bots waits on a person's turn before that person has walked
away (``Pipeline.walk_away``; docs/bounds.md, "Every game ends")."""


class GameHost(GameFollowing[S, C, E]):
    """Commands decided and appended on a game's record (``GameRecord``, ``GameFollowing``)."""

    walked_away = WALKED_AWAY

    # -- writing -------------------------------------------------------------------------

    async def create(
        self,
        game_id: str,
        command: C,
        *,
        command_id: str | None = None,
        actor: str | None = None,
        correlation_id: str | None = None,
        extra: Mapping[str, str] | None = None,
        fingerprint: str | None = None,
    ) -> Outcome[S, E]:
        """Start a game: its first events, in a stream that must not exist yet.

        ``extra`` is recorded in those events' metadata (who agreed to the seats: consent);
        ``fingerprint``, what makes a retry under a client's ``command_id`` the same create
        (the carrying request's, given by the servicer; None: not checked).
        """
        return await self.decide(
            game_id,
            Given(command, actor, command_id, fingerprint),
            correlation_id=correlation_id,
            extra=extra,
            create=True,
        )

    async def execute(
        self,
        game_id: str,
        command: C,
        *,
        command_id: str | None = None,
        actor: str | None = None,
        arrived: datetime | None = None,
        fingerprint: str | None = None,
    ) -> Outcome[S, E]:
        """An engine command as it is (``Given``: a tool's, a test's), decided (``decide``).

        A command the timeouts due before it overtake is refused (``Overtaken``) and those
        timeouts are not appended here: the pipeline makes them (``Pipeline.execute``)."""
        return await self.decide(game_id, Given(command, actor, command_id, fingerprint, arrived))

    @observed_decide
    async def decide(
        self,
        game_id: str,
        command: Issued,
        *,
        answer: Answer | None = None,
        correlation_id: str | None = None,
        extra: Mapping[str, str] | None = None,
        create: bool = False,
    ) -> Outcome[S, E]:
        """Decide ``command`` on the latest state and append its events; retried on conflicts.

        The command is a value (``parlor.gamehost.record.command``) handed on by name: it makes the
        engine's command on the state it is decided on (``Issued.made``, with the outside
        answers it needs, from ``answer``, about that very state), which the rules decide.
        ``command.arrived``: when a seat's command reached the server, if it waited before
        this call (a game's queue): the time it is charged to (default: now).
        ``command.fingerprint``: what makes a client's command id's command "the same".
        """
        command_id = command.command_id
        actor = command.actor
        fingerprint: str | None = None
        awaits = command.awaits  # made on outside answers or a bot's thinking (awaited)
        platforms = isinstance(command_id, SystemCommandId) and awaits
        if command_id is not None:
            # A client's command is fingerprinted by the RPC that carries it; the
            # platform's own ids are unique by construction.
            if not isinstance(command_id, SystemCommandId):
                fingerprint = command.fingerprint
            command_id = check_command_id(command_id)
        stream_id = self.stream_id(game_id)
        caught_up: tuple[S, int] | None = None  # the store's state after a cached refusal
        # A seat's command is timed when it arrives (before a queue it waited in): a retry
        # after a conflict (another writer first, the dictionary asked again) is the
        # server's time, not the seat's. The platform's own (a system command id) is timed
        # when it is decided (below).
        arrived = command.arrived if command.arrived is not None else self.now()
        for attempt in range(self.max_attempts):
            if create:
                state, version = self.decider.initial_state(), NO_STREAM
            elif caught_up is not None:
                (state, version), caught_up = caught_up, None
            else:
                state, version = await self._current(game_id, fresh=attempt > 0)
            at = _not_before(arrived, state)
            stamped = False
            try:
                made = await command.made(state, answer)
                given = self.now() if awaits else None  # the platform's time ends here
                if platforms:
                    # The platform's own command (a bot's move, a round dealt) is timed when
                    # it is decided, not when its planning began: the seat it gives the turn
                    # to starts then, and is never charged the platform's thinking.
                    at = _not_before(self.now(), state)
                stamped = self._timed(state, made)
                asked: Any = Timed(made, at) if stamped else made
                answered = self.decider.decide(state, asked)
                events = list(answered)
            except Preempted as late:
                # A retry of a command already applied gets its first outcome, as any
                # retry does, however late it comes (and appends nothing).
                prior = await self._prior_or_none(game_id, command_id, actor, fingerprint)
                if prior is not None:
                    return prior
                # Timeouts came due before the command: the pipeline appends them (the
                # platform's own command) and the caller hears TIMED_OUT or GAME_OVER.
                raise Overtaken(late, state, version, at) from None
            except ParlorError as refused:
                if attempt == 0 and not create and isinstance(refused, STATE_REFUSALS):
                    # Refused on the cached state: decided again only if the store has
                    # moved on since (else the refusal stands, decided once).
                    caught_up = await self._current(game_id, fresh=True)
                    if caught_up[1] != version:
                        continue
                    caught_up = None
                try:
                    prior = await self._prior(game_id, command_id, actor, fingerprint)
                except AlreadyExists as taken:
                    if taken.reason == "COMMAND_ID_TAKEN":
                        raise refused from None  # another's id: the caller's own refusal stands
                    raise
                if prior is not None:
                    return prior
                raise
            if not events:
                return Outcome(state, version, ())
            # ``Seated`` folds each event once, as it decides it: its answer holds how each is
            # stamped and the state after each (``Decided``).
            stamps: Sequence[Stamp | None] = answered.stamps
            folded: Sequence[S] | None = answered.states
            if stamped and given is not None and given - at >= GIVEN_AFTER:
                # A seat's command that waited on the dictionary: charged to its arrival,
                # the turn it gives starting now (the fold again, with that time).
                stamps = [replace(st, given=given) if st is not None else st for st in stamps]
                folded = None
            try:
                result = await self.store.append(
                    stream_id,
                    [
                        self._new(e, actor, correlation_id, extra, stamp)
                        for e, stamp in zip(events, stamps, strict=True)
                    ],
                    expected_version=version,
                    command_id=command_id,
                    fingerprint=fingerprint,
                )
            except AlreadyExists as reused:
                # The id is known with another command: if it is another actor's, say so
                # as for any of their ids (and show nothing of it); else the reuse.
                await self._prior(game_id, command_id, actor)
                raise reused from None
            except Conflict:
                # Another replica appended first. The cached state stays: what the store
                # held at its version never changes, so the retry reads only what is newer.
                if create:
                    prior = await self._prior(game_id, command_id, actor, fingerprint)
                    if prior is not None:
                        return prior
                    raise AlreadyExists(
                        f"game {game_id} already exists", reason="GAME_EXISTS"
                    ) from None
                continue
            if result.duplicate:
                return await self._outcome_of(game_id, result, actor)
            states = folded or self._folded(events, stamps, state)
            new_state = states[-1]
            self._remember(game_id, new_state, result.last_version)
            befores = (state, *states[:-1])
            records = tuple(
                Recorded(r, e, b, a)
                for r, e, b, a in zip(result.events, events, befores, states, strict=False)
            )
            self.bells.ring(game_id, result.last_version, records)
            await self.schedule(game_id, new_state, result.last_version)
            return Outcome(new_state, result.last_version, tuple(events), records=records)
        raise Conflict(
            f"game {game_id} is too busy: gave up after {self.max_attempts} attempts",
            reason="TOO_MANY_CONFLICTS",
        )

    # -- inside --------------------------------------------------------------------------

    def _new(
        self,
        event: E,
        actor: str | None,
        correlation_id: str | None,
        extra: Mapping[str, str] | None,
        stamp: Stamp | None = None,
    ) -> NewEvent:
        event_type, data = self.codec.encode(event)
        if stamp is not None:
            extra = {**(extra or {}), **stamp.extra()}
        return NewEvent(
            type=event_type,
            data=data,
            metadata=Metadata(actor=actor, correlation_id=correlation_id, extra=extra or {}),
        )

    def _timed(self, state: S, command: object) -> bool:
        """Whether a command is decided with the time (a game with clocks, or opening one)."""
        if state.clock is not None:
            return True
        return isinstance(command, OpenTable) and command.time_control.timed

    def _folded(self, events: Sequence[E], stamps: Sequence[Stamp | None], state: S) -> list[S]:
        """The state after each event, folded again with the times they are stamped with."""
        states: list[S] = []
        for event, stamp in zip(events, stamps, strict=True):
            state = self.decider.evolve_at(state, event, stamp)
            states.append(state)
        return states

    async def append_timeouts(self, game_id: str, late: Overtaken) -> bool:
        """Append the timeouts that overtook a command (``Overtaken``), stamped with the time
        it was decided at, under the platform's id ``parlor:timeout-<version>`` of the version
        they follow: False if another writer got there first (this replica's cached state is
        then caught up with the store, for the command to be decided again)."""
        stamps: list[Stamp | None] = [Stamp(late.at) for _ in late.events]
        try:
            result = await self.store.append(
                self.stream_id(game_id),
                [
                    self._new(e, None, None, None, st)
                    for e, st in zip(late.events, stamps, strict=True)
                ],
                expected_version=late.version,
                command_id=str(system_command_id("timeout", late.version)),
            )
        except Conflict:
            await self._current(game_id, fresh=True)
            return False
        if not result.duplicate:
            states = late.states or self._folded(late.events, stamps, late.state)
            new_state = states[-1]
            self._remember(game_id, new_state, result.last_version)
            self.bells.ring(game_id, result.last_version)
            await self.schedule(game_id, new_state, result.last_version)
        return True

    async def schedule(self, game_id: str, state: S, version: int) -> None:
        """Tell the deadline index when this game next needs the clock (None: never). An
        untimed game with bots is noted too: when its person to move will have walked away
        (``walked_away`` from now; None once it waits on no person)."""
        if self.deadlines is None:
            return
        if state.clock is None:
            if not self._walks_away(state):
                return
            away = self.now() + self.walked_away if self.waits_on(state) else None
            await self.deadlines.schedule(self.category, game_id, away, version)
            return
        due = self.decider.next_deadline(state)
        await self.deadlines.schedule(self.category, game_id, due, version)

    def _walks_away(self, state: S) -> bool:
        """Whether a person can walk away from this game, leaving its bots waiting: an
        untimed game with turns and bots (a game without turns, Take Four, has its bot
        runner for that; a timed one, its clock)."""
        timing = self.decider.timing
        return (
            timing is not None
            and not timing.idle
            and state.clock is None
            and any(seat.is_bot for seat in state.seats)
        )

    def waits_on(self, state: S) -> list[int]:
        """The people an untimed game with bots waits on (their turn, still in it): a game
        that only bots play beside them. Empty for any other game."""
        timing = self.decider.timing
        if timing is None or not self._walks_away(state) or self.decider.is_terminal(state):
            return []
        seats, game = state.seats, state.game
        return [s for s in timing.running(game) if not seats[s].is_bot and not timing.out(game, s)]

    async def walked_out(self, game_id: str) -> tuple[int, list[int]] | None:
        """The version of an untimed game with bots and the people it has waited on for
        ``walked_away`` (their turn, still in it): None if it waits on no person, or they
        acted within ``walked_away`` (the time of the game's last event says: the note the
        sweeper read may be older). ``Pipeline.walk_away`` times the first of them out."""
        state, version = await self._current(game_id, fresh=True)
        waited = self.waits_on(state)
        if not waited:
            return None
        last = await self.store.read_stream(self.stream_id(game_id), version, version)
        if last and self.now() - last[-1].recorded_at < self.walked_away:
            return None
        return version, waited


def _not_before(arrived: datetime, state: Table[Any]) -> datetime:
    """``arrived``, or the time of the state's last stamped event if that is later (the
    writer that came first stamped after this command arrived): a stream's stamps never go
    back. A seat whose deadline fell between the two was timed out by that writer."""
    last = state.clock.at if state.clock is not None else None
    return last if last is not None and last > arrived else arrived
