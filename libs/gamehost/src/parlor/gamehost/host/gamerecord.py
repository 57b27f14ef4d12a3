"""A game's record read: its state now or at a version (replayed from the nearest kept
state), its events, a command id's first outcome; the cache of the newest states.

``GameRecord`` is what ``GameHost`` (``parlor.gamehost.host.host``) reads with; following a game
as it is played is ``GameFollowing`` (``parlor.gamehost.host.following``) and deciding and
appending is the host's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import (
    AsyncGenerator,
    Iterable,
    Sequence,
)
from dataclasses import replace
from typing import Any, Generic, TypeVar, cast

from parlor.core.errors import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
)
from parlor.eventstore import AppendResult, EventStore
from parlor.eventstore.events import command_id_reused
from parlor.gamehost.host.observe import traced_decider
from parlor.gamehost.record.checkpoints import Checkpoints
from parlor.gamehost.record.length import MAX_EVENTS_PER_GAME, LengthCapped
from parlor.gamehost.record.recorded import (
    FOLD_SLICE,
    MAX_VERSION,
    READ_PAGE,
    Outcome,
    Recorded,
    check_version,
)
from parlor.gamehost.table.clocks import Now, stamp_of, system_now
from parlor.gamehost.table.codec import EventCodec
from parlor.gamehost.table.decider import SeatedDecider
from parlor.gamehost.table.seating import Table
from parlor.gametypes.ids import check_id
from parlor.runtime.bells import GameBells

S = TypeVar("S", bound=Table[Any])
C = TypeVar("C")
E = TypeVar("E")


class GameRecord(Generic[S, C, E]):
    """A game's stream read and folded, with a cache of each game's newest state."""

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
        # recorded in its events' metadata and folded into the state (gamehost/table/clocks.py);
        # ``deadlines`` (a ``DeadlineIndex``) learns each timed game's next deadline.
        self.now = now
        self.deadlines = deadlines
        self.decider: SeatedDecider[S, C, E] = traced_decider(decider, category)
        self.codec = codec
        # A game holds at most ``max_events`` events (``parlor.gamehost.record.length``).
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

    # -- clocks (gamehost/table/clocks.py) -------------------------------------------------------

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
