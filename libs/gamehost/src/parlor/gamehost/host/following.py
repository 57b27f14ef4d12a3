"""Following a game as it is played: the game as it stands, the events since a version,
then each new one as it is appended (woken by the game's bells, looking at the store when
the bus hints at another replica's news). ``GameFollowing`` is what ``GameHost`` watches with.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Iterable,
)
from dataclasses import replace
from typing import Any, TypeVar

from parlor.gamehost.host.gamerecord import GameRecord
from parlor.gamehost.host.observe import watched
from parlor.gamehost.record.recorded import READ_PAGE, Recorded, check_version
from parlor.gamehost.table.seating import Table

S = TypeVar("S", bound=Table[Any])
C = TypeVar("C")
E = TypeVar("E")
R = TypeVar("R")


class GameFollowing(GameRecord[S, C, E]):
    """A game's record followed: ``watch``, ``opening`` and ``created``."""

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


async def _listed(items: Iterable[R]) -> AsyncGenerator[R, None]:
    for item in items:
        yield item
