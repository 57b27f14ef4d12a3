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

Commands the platform issues itself (bot moves, Take Four's rounds) carry a
``SystemCommandId``: ``parlor:<kind>-<n>``. A client's command id is checked to
the client alphabet (letters, digits, ``-`` and ``_``), which has no ``:``, so no
client can send, and squat, a platform command's id.

A command reaches the host as a value (``parlor.gamehost.command``: ``GameHost.decide``),
which makes the engine's command on the state it is decided on. One whose timeouts came
due before it is refused here (``Overtaken``) with nothing appended: the pipeline appends
those timeouts as the platform's own command (``append_timeouts``).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import OrderedDict
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar, cast

from parlor.core.errors import (
    AlreadyExists,
    Conflict,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ParlorError,
    PermissionDenied,
)
from parlor.eventstore import NO_STREAM, AppendResult, EventStore, Metadata, NewEvent, RecordedEvent
from parlor.eventstore.events import command_id_reused
from parlor.gamehost.bells import GameBells
from parlor.gamehost.checkpoints import Checkpoints
from parlor.gamehost.clocks import Now, Preempted, Stamp, Timed, stamp_of, system_now
from parlor.gamehost.codec import EventCodec
from parlor.gamehost.command import Answer, Given, Issued
from parlor.gamehost.decider import SeatedDecider
from parlor.gamehost.length import MAX_EVENTS_PER_GAME, LengthCapped
from parlor.gamehost.observe import observed_decide, traced_decider, watched
from parlor.gamehost.seating import OpenTable, Table

S = TypeVar("S", bound=Table[Any])
C = TypeVar("C")
E = TypeVar("E")
R = TypeVar("R")

MAX_ID_LENGTH = 128
STATE_REFUSALS = (FailedPrecondition, PermissionDenied, InvalidArgument)
"""Refusals that depend on the game's state, so a stale cached state could cause them.
Outages (``Unavailable``) and the rest are not worth deciding again."""
MAX_VERSION = 2**62  # far beyond any game; keeps client numbers inside PostgreSQL's bigint
READ_PAGE = 256
"""Events a long read takes from the store at a time."""
FOLD_SLICE = 32
"""Events a long read folds between yields to the event loop (some milliseconds at most)."""


def check_version(value: int, what: str = "version") -> int:
    if not 0 <= value <= MAX_VERSION:
        raise InvalidArgument(
            f"{what} must be between 0 and {MAX_VERSION}", reason="INVALID_VERSION"
        )
    return value


@dataclass(frozen=True)
class Recorded(Generic[E]):
    """A stored event with its domain form."""

    record: RecordedEvent
    event: E
    before: Any = field(default=None, compare=False, repr=False)
    """The game's state before the event, where the host had it at hand: in a command's
    ``Outcome.records`` and from ``GameHost.recorded`` (None in ``history``)."""
    after: Any = field(default=None, compare=False, repr=False)
    """The game's state after the event, where the command that appended it had it at hand
    (``Outcome.records``, and so the bells' tail): a watcher of this replica takes it instead
    of folding the event again (``GameHost.folded``); None elsewhere."""

    @property
    def version(self) -> int:
        return self.record.version


@dataclass(frozen=True)
class Outcome(Generic[S, E]):
    """What a command did: the state after it, its version, and the events it appended."""

    state: S
    version: int
    events: tuple[E, ...]
    duplicate: bool = False
    records: tuple[Recorded[E], ...] = ()
    """The appended events as stored (versions, positions, times), each with the state before
    it, when known without a read: a reply's events come from here (``GameHost.recorded``).
    After ``Pipeline.after`` it holds the bots' moves too."""


_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]+")
"""The client alphabet: ASCII letters and digits, ``-`` and ``_`` (one match, where a
generator over the characters took a call per character, several ids per move)."""


def check_id(value: str, what: str) -> str:
    """Ids come from clients: non-empty, short, and safe as stream ids and NATS tokens."""
    if not value or len(value) > MAX_ID_LENGTH:
        raise InvalidArgument(
            f"{what} must be 1 to {MAX_ID_LENGTH} characters", reason=f"INVALID_{what.upper()}"
        )
    if _CLIENT_ID.fullmatch(value) is None:
        raise InvalidArgument(
            f"{what} may hold only letters, digits, '-' and '_'", reason=f"INVALID_{what.upper()}"
        )
    return value


SYSTEM_PREFIX = "parlor:"
"""The namespace of platform-issued command ids: ``:`` is outside the client alphabet."""


class SystemCommandId(str):
    """A command id the platform issues itself; made only by ``system_command_id``."""

    __slots__ = ()


def system_command_id(kind: str, *parts: object) -> SystemCommandId:
    """``parlor:<kind>-<part>-...``: an id no client can send (see ``check_id``)."""
    return SystemCommandId(SYSTEM_PREFIX + "-".join((kind, *(str(p) for p in parts))))


def check_command_id(command_id: str) -> str:
    """A platform id passes as made; a client's must be in the client alphabet."""
    if isinstance(command_id, SystemCommandId):
        return str(command_id)
    return check_id(command_id, "command_id")


GIVEN_AFTER = timedelta(milliseconds=1)
"""A seat's command decided this long or longer after it arrived (the dictionary asked)
records when it was decided too (``Stamp.given``): the turn it gives starts then. Below
it, the time it arrived serves for both (no metadata, no fold again)."""

WALKED_AWAY = timedelta(hours=24)
"""How long an untimed game with bots waits on a person's turn before that person has walked
away (``Pipeline.walk_away``; docs/bounds.md, "Every game ends")."""


class Overtaken(FailedPrecondition):
    """A command the timeouts due before it overtook (``Preempted``), refused and nothing
    appended: ``events`` (the timeouts) and ``states`` (the table after each) follow
    ``state`` at ``version``, decided at ``at``. The pipeline appends them as the platform's
    own command (``GameHost.append_timeouts``) and then refuses the command with ``reason``:
    ``TIMED_OUT`` (its seat ran out) or ``GAME_OVER`` (the others' timeouts ended the game)."""

    def __init__(self, late: Preempted, state: Any, version: int, at: datetime) -> None:
        super().__init__(str(late), reason=late.reason)
        self.events = late.events
        self.states = late.states
        self.state = state
        self.version = version
        self.at = at


class GameHost(Generic[S, C, E]):
    walked_away = WALKED_AWAY

    def __init__(
        self,
        category: str,
        decider: SeatedDecider[S, C, E],
        codec: EventCodec[E],
        store: EventStore,
        *,
        bells: GameBells | None = None,
        cache_size: int = 4096,
        max_attempts: int = 32,
        now: Now = system_now,
        deadlines: Any = None,
        max_events: int = MAX_EVENTS_PER_GAME,
    ) -> None:
        self.category = category
        # Clocks (``Seated`` with a timing): the time of each command, from ``now``, is
        # recorded in its events' metadata and folded into the state (gamehost/clocks.py);
        # ``deadlines`` (a ``DeadlineIndex``) learns each timed game's next deadline.
        self.now = now
        self.deadlines = deadlines
        self.decider: SeatedDecider[S, C, E] = traced_decider(decider, category)
        self.codec = codec
        # A game holds at most ``max_events`` events (``parlor.gamehost.length``).
        self.store: EventStore = LengthCapped(store, max_events)
        self.bells = bells or GameBells()
        self.cache_size = cache_size
        self.max_attempts = max_attempts
        self._cache: OrderedDict[str, tuple[S, int]] = OrderedDict()
        self.checkpoints: Checkpoints[S] = Checkpoints()
        self._warming: dict[str, asyncio.Lock] = {}

    def stream_id(self, game_id: str) -> str:
        return f"{self.category}-{check_id(game_id, 'game_id')}"

    # -- reading -------------------------------------------------------------------------

    async def load(self, game_id: str, version: int | None = None) -> tuple[S, int]:
        """The state of a game now (fresh from the store) or at an earlier version."""
        if version is not None:
            check_version(version)
            if version < 1:
                raise InvalidArgument("version must be 1 or more", reason="INVALID_VERSION")
            return await self.state_at(game_id, version), version
        return await self._current(game_id, fresh=True)

    async def state_at(self, game_id: str, version: int) -> S:
        """The game's state at ``version`` (1 or more): the cached latest state if that is
        the one, else folded from the nearest kept state before it (``replayed``)."""
        cached = self._cache.get(game_id)
        if cached is not None and cached[1] == version:
            return cached[0]
        async with contextlib.aclosing(self.replayed(game_id, version, version)) as one:
            async for recorded in one:
                return cast(S, recorded.after)
        last = await self.store.stream_version(self.stream_id(game_id))
        if last == 0:
            raise self.not_found(game_id)
        raise NotFound(f"game {game_id} has only {last} events", reason="NO_SUCH_VERSION")

    async def replayed(
        self, game_id: str, first: int = 1, last: int | None = None
    ) -> AsyncGenerator[Recorded[E], None]:
        """Events ``first..last`` (None: to the stream's end), each with the state before
        and after it (``Recorded.before``, ``after``): folded from the nearest kept state at
        or before ``first - 1`` (``checkpoints``), never from event 1 again once a game has
        been read, ``READ_PAGE`` events read and folded at a time, the event loop free
        between pages. What a read costs is then what it returns, and no read folds a long
        stream on the loop in one go."""
        check_version(first, "from_version")
        if last is not None:
            check_version(last, "to_version")
        version, state = await self._warmed(game_id, first - 1)
        async with contextlib.aclosing(self._folding(game_id, version, state, last)) as folding:
            async for recorded in folding:
                if recorded.version >= first:
                    yield recorded

    async def _folding(
        self, game_id: str, version: int, state: S, last: int | None
    ) -> AsyncGenerator[Recorded[E], None]:
        """The events after ``version`` (whose state is ``state``) up to ``last``, each with
        the states before and after it, read a page at a time; the states at the versions
        ``checkpoints`` keeps are kept on the way."""
        keep = self.checkpoints.keep
        while last is None or version < last:
            upto = version + READ_PAGE if last is None else min(last, version + READ_PAGE)
            asked = upto - version
            page = await self.history(game_id, version + 1, upto)
            for i, r in enumerate(page):
                if i and not i % FOLD_SLICE:
                    await asyncio.sleep(0)
                after = self._evolve(state, r)
                keep(game_id, r.version, after)
                yield replace(r, before=state, after=after)
                state, version = after, r.version
            if len(page) < asked:
                return
            await asyncio.sleep(0)

    async def _warmed(self, game_id: str, version: int) -> tuple[int, S]:
        """The nearest kept state at or before ``version`` and its version (0 and the
        initial state: none), after folding the game's kept states up to ``version`` if
        they were missing: one fold a game at a time, the others waiting for its states,
        so many readers of a game this process has not read yet fold it once."""
        every = self.checkpoints.every
        at, state = self.checkpoints.nearest(game_id, version)
        if version - at >= every:
            lock = self._warming.setdefault(game_id, asyncio.Lock())
            async with lock:
                at, state = self.checkpoints.nearest(game_id, version)
                if version - at >= every:
                    start = state if state is not None else self.decider.initial_state()
                    last = version - version % every
                    async with contextlib.aclosing(
                        self._folding(game_id, at, start, last)
                    ) as folding:
                        async for _ in folding:
                            pass
                    at, state = self.checkpoints.nearest(game_id, version)
            if not lock.locked():
                self._warming.pop(game_id, None)
        return at, state if state is not None else self.decider.initial_state()

    async def latest(self, game_id: str) -> tuple[S, int]:
        """The newest state this replica knows of a game: its cache, else read from the store
        (for what never changes once the game is created, such as who sits in it)."""
        return await self._current(game_id, fresh=False)

    async def history(
        self, game_id: str, from_version: int = 1, to_version: int | None = None
    ) -> list[Recorded[E]]:
        check_version(from_version, "from_version")
        if to_version is not None:
            check_version(to_version, "to_version")
        records = await self.store.read_stream(self.stream_id(game_id), from_version, to_version)
        return [Recorded(r, self.codec.decode(r.type, r.data)) for r in records]

    async def recorded(
        self, game_id: str, first: int, last: int, *outcomes: Outcome[S, E]
    ) -> list[Recorded[E]]:
        """Events ``first..last``, each with the state before it (``Recorded.before``): from
        the outcomes' records if they hold every one (no read-back of what was just written),
        else read from the store (from the first event, to fold the states before)."""
        known = {r.version: r for outcome in outcomes for r in outcome.records}
        if all(v in known for v in range(first, last + 1)):
            return [known[v] for v in range(first, last + 1)]
        async with contextlib.aclosing(self.replayed(game_id, first, last)) as records:
            return [r async for r in records]

    async def events(self, game_id: str) -> list[E]:
        """Every event of a game, read a page at a time with the event loop free between
        pages (an export's; the game's length is bounded)."""
        out: list[E] = []
        while True:
            page = await self.history(game_id, len(out) + 1, len(out) + READ_PAGE)
            out += [r.event for r in page]
            if len(page) < READ_PAGE:
                return out
            await asyncio.sleep(0)

    async def exists(self, game_id: str) -> bool:
        return await self.store.stream_version(self.stream_id(game_id)) > 0

    async def watch(
        self, game_id: str, after_version: int = 0, poll_seconds: float = 5.0
    ) -> AsyncIterator[Recorded[E]]:
        """Every event after ``after_version``, then each new one as it is appended; never ends."""
        check_version(after_version, "after_version")
        _, _, past, following = await self.opening(game_id, after_version, poll_seconds)
        async with contextlib.aclosing(past), contextlib.aclosing(following):
            async for recorded in past:
                yield recorded
            async for recorded in following:
                if recorded.version > after_version:
                    yield recorded

    async def created(self, game_id: str, seconds: float) -> bool:
        """Whether the game exists, or comes to within ``seconds``: woken by its bell (its
        first events appended here, or the bus's word of them elsewhere), and looking again
        every half second whatever the bell says."""
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        while True:
            bell = self.bells.bell(game_id)
            if await self.exists(game_id):
                return True
            left = until - loop.time()
            if left <= 0:
                return False
            await self.bells.wait(bell, min(left, 0.5))

    async def opening(
        self, game_id: str, after_version: int = 0, poll_seconds: float = 5.0
    ) -> tuple[S, int, AsyncGenerator[Recorded[E], None], AsyncGenerator[Recorded[E], None]]:
        """A game as it stands (fresh from the store) and its version; the events after
        ``after_version`` up to that version, each with the states before and after it; and
        then each new event as it is appended: for a watch that needs the game as it stands
        before it sends anything (the watcher's seat in it).

        The state is folded from the nearest kept state at or before ``after_version``
        (``checkpoints``): when the rest of the game is one page (``READ_PAGE`` events), it
        is read once and folded once; else the game is caught up a page at a time, and the
        past events are ``replayed``'s, each page read as the watcher takes it."""
        check_version(after_version, "after_version")
        bell = self.bells.bell(game_id)
        hinted = self.bells.hinted(game_id)
        at, state = await self._warmed(game_id, after_version)
        page = await self.history(game_id, at + 1, at + READ_PAGE)
        if len(page) < READ_PAGE:
            if not page and at == 0:
                raise self.not_found(game_id)
            past: list[Recorded[E]] = []
            for r in page:
                after = self._evolve(state, r)
                self.checkpoints.keep(game_id, r.version, after)
                if r.version > after_version:
                    past.append(replace(r, before=state, after=after))
                state = after
            version = page[-1].version if page else at
            self._remember(game_id, state, version)
            following = self._after(game_id, version, hinted, bell, poll_seconds)
            return state, version, _listed(past), following
        state, version = await self._current(game_id, fresh=True)
        following = self._after(game_id, version, hinted, bell, poll_seconds)
        return state, version, self.replayed(game_id, after_version + 1, version), following

    @watched
    async def _after(
        self, game_id: str, last: int, read_at: int | None, bell: asyncio.Event, poll_seconds: float
    ) -> AsyncGenerator[Recorded[E], None]:
        """Each event after ``last`` as it comes, the store having been read up to ``last``
        at the bus's hint mark ``read_at`` with ``bell`` taken before that read."""
        while True:
            await self.bells.wait(bell, poll_seconds)
            if not bell.is_set():
                read_at = None  # the wait ran out: look at the store
            bell = self.bells.bell(game_id)
            hinted = self.bells.hinted(game_id)
            # What this process has just appended comes from its bells' tail, without a
            # read, unless the bus has hinted at another replica's news since the last read.
            news = self.bells.tail_after(game_id, last) if hinted == read_at else None
            if news is None:
                read_at = hinted
                news = await self.history(game_id, last + 1)
                self._caught_up(game_id, news)
            for recorded in news:
                last = recorded.version
                yield recorded

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

        The command is a value (``parlor.gamehost.command``) handed on by name: it makes the
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

    # -- clocks (gamehost/clocks.py) -------------------------------------------------------

    def fold(self, records: Iterable[Recorded[E]], state: S | None = None) -> S:
        """The state after stored events, clocks advanced by the times they record."""
        if state is None:
            state = self.decider.initial_state()
        for r in records:
            state = self._evolve(state, r)
        return state

    def folded(self, recorded: Recorded[E], state: S) -> S:
        """The state after ``recorded``, ``state`` being the game just before it: the state
        the appending command left (``Recorded.after``) where it came with the event, else
        ``state`` evolved by it. One version names one state, so both are the same."""
        after = recorded.after
        return after if after is not None else self._evolve(state, recorded)

    def _evolve(self, state: S, r: Recorded[E]) -> S:
        extra = r.record.metadata.extra
        return self.decider.evolve_at(state, r.event, stamp_of(extra) if extra else None)

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

    def not_found(self, game_id: str) -> NotFound:
        return NotFound(f"no {self.category} game with id {game_id}", reason="GAME_NOT_FOUND")

    def _remember(self, game_id: str, state: S, version: int) -> None:
        """Keep the newest state seen; a slow read finishing after a newer append must not
        put an older state back (commands would then be decided, and refused, on it).
        A state at a version ``checkpoints`` keeps is kept there too: a game played on this
        replica from its start needs no fold to be read at a version."""
        self.checkpoints.keep(game_id, version, state)
        cached = self._cache.get(game_id)
        if cached is not None and cached[1] > version:
            return
        self._cache[game_id] = (state, version)
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _caught_up(self, game_id: str, news: Sequence[Recorded[E]]) -> None:
        """A watcher's read of a game's newest events also brings its cached state up to
        date, when they follow on from it: a move made on this replica after another
        replica's is then decided on the state as it is, not refused by the store as stale
        (a failed append and a read of the game) and decided again."""
        cached = self._cache.get(game_id)
        if cached is None or not news or news[0].version != cached[1] + 1:
            return
        self._remember(game_id, self.fold(news, cached[0]), news[-1].version)

    async def _current(self, game_id: str, *, fresh: bool) -> tuple[S, int]:
        """The latest state: from the cache, caught up with the store when ``fresh``."""
        cached = self._cache.get(game_id)
        if cached is not None and not fresh:
            return cached
        state, version = cached if cached is not None else (self.decider.initial_state(), 0)
        if cached is not None:
            # What is newer than the cached state, usually a page or less.
            page = await self.history(game_id, version + 1, version + READ_PAGE)
            for r in page:
                state = self._evolve(state, r)
                self.checkpoints.keep(game_id, r.version, state)
                version = r.version
            if len(page) < READ_PAGE:
                self._remember(game_id, state, version)
                return state, version
        # Not read here lately, or far behind: from the latest kept state, the kept ones made
        # first (``_warmed``: one fold a game for every reader), the rest a page at a time.
        at, kept = await self._warmed(game_id, MAX_VERSION)
        if at > version:
            state, version = kept, at
        async with contextlib.aclosing(self._folding(game_id, version, state, None)) as newer:
            async for recorded in newer:
                state, version = cast(S, recorded.after), recorded.version
        if version == 0:
            raise self.not_found(game_id)
        self._remember(game_id, state, version)
        return state, version

    async def _prior_or_none(
        self,
        game_id: str,
        command_id: str | None,
        actor: str | None,
        fingerprint: str | None,
    ) -> Outcome[S, E] | None:
        """``_prior``, but another actor's id (``COMMAND_ID_TAKEN``) is no prior outcome of
        the caller's: their command is decided as a new one."""
        try:
            return await self._prior(game_id, command_id, actor, fingerprint)
        except AlreadyExists as taken:
            if taken.reason == "COMMAND_ID_TAKEN":
                return None
            raise

    async def prior(
        self,
        game_id: str,
        command_id: str | None,
        actor: str | None,
        fingerprint: str | None = None,
    ) -> Outcome[S, E] | None:
        """A command id's first outcome for the actor who sent it (see ``_prior``)."""
        return await self._prior(game_id, command_id, actor, fingerprint)

    async def _prior(
        self,
        game_id: str,
        command_id: str | None,
        actor: str | None,
        fingerprint: str | None = None,
    ) -> Outcome[S, E] | None:
        """The outcome of a command id already applied to this game, if any.

        Another actor's id is ``COMMAND_ID_TAKEN``; the caller's own id stored with
        another command's fingerprint is ``COMMAND_ID_REUSED``.
        """
        if command_id is None:
            return None
        result = await self.store.command_result(self.stream_id(game_id), command_id)
        if result is None:
            return None
        outcome = await self._outcome_of(game_id, result, actor)
        self.check_fingerprint(game_id, result, fingerprint)
        return outcome

    def check_fingerprint(
        self, game_id: str, result: AppendResult, fingerprint: str | None = None
    ) -> None:
        """Refuse a known command id whose stored command is not the one being served
        (``fingerprint``: the serving request's; None: not compared)."""
        if None not in (fingerprint, result.fingerprint) and fingerprint != result.fingerprint:
            raise command_id_reused(self.stream_id(game_id))

    async def _outcome_of(
        self, game_id: str, result: AppendResult, actor: str | None
    ) -> Outcome[S, E]:
        """A repeated command's first outcome, for the actor who sent it and no one else."""
        records = tuple(await self.recorded(game_id, result.first_version, result.last_version))
        first = records[0]
        if actor is not None and first.record.metadata.actor not in (None, actor):
            raise AlreadyExists(
                "this command_id was already used in this game by someone else;"
                " choose a new one (a random UUID)",
                reason="COMMAND_ID_TAKEN",
            )
        state = cast(S, records[-1].after)
        mine = tuple(r.event for r in records)
        return Outcome(state, result.last_version, mine, duplicate=True, records=records)


def _not_before(arrived: datetime, state: Table[Any]) -> datetime:
    """``arrived``, or the time of the state's last stamped event if that is later (the
    writer that came first stamped after this command arrived): a stream's stamps never go
    back. A seat whose deadline fell between the two was timed out by that writer."""
    last = state.clock.at if state.clock is not None else None
    return last if last is not None and last > arrived else arrived


async def _listed(items: Iterable[R]) -> AsyncGenerator[R, None]:
    for item in items:
        yield item
