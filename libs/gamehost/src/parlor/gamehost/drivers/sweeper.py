"""The sweeper: fires the timeouts of games nobody touches, on every replica.

It also ends the waits of untimed games with bots: the host notes such a game while its
person to move keeps the bots waiting, due ``GameHost.walked_away`` (24 h) after its last
move; once due, that person has walked away and their seat times out (``walk_away``), and
the bots play the game to its end.

Every ``interval`` seconds (``PARLOR_CLOCK_SWEEP_SECONDS``, 2 by default) it reads the
games whose deadline is due from the deadline index and sends each a ``Tick`` through
the game host: the clock layer decides the timeouts on the game's own events and the
host appends them with the version they were decided on. Two replicas sweeping the same
game both decide on version v; one append wins, the other meets a conflict, decides
again on the new version, finds nothing due and appends nothing. So every replica may
sweep, with no leader. After a sweep the game's follow-ups run (``after``: a bot whose
turn it now is, Take Four's next round).

One game never blocks the others: a game whose sweep fails (any error but the store
being down, which skips the pass) is logged with its id and its row is pushed back by
a backoff (``interval * 2**failures``, at most ``max_backoff`` seconds), so it leaves
the head of the due list to the real timeouts behind it.

**Recovery** (``recover``, on start, and ``catch_up``, every ``cover_seconds`` once
``recover`` is done): the deadline notes are written apart from the appends (a flush
every 0.5 s, see ``PostgresDeadlines``), so a replica that dies loses its last ones, and
a game whose newest note was lost may have no row at all (made just before the crash) or
only a marker (a bot's turn before, a game that was not timed yet), which ``due`` never
lists: its clock would never run out. The index keeps a mark per game type, the store
position up to which every game is known noted (``DeadlineIndex.covered``). A pass reads
the games with an event after the mark (``EventStore.streams_touched``: the store
filters the category and sends one row per game, in chunks of ``chunk`` positions),
loads each from its own events, runs its follow-ups (a bot whose move the crash cut off,
Take Four's next round), notes its next deadline, writes the notes and raises the mark
to the chunk's end (``DeadlineIndex.cover``). All idempotent, so every replica may do
it, and the sweeps do not wait for it: ``run`` recovers in a task of its own beside the
sweeps, which start at once (a first start on a store with no mark yet reads every game
of the type, which may take minutes; the timeouts the index already holds fire
meanwhile). A sweep and a recovery of one game at once decide on its events as two
replicas do: one append wins, the other meets a conflict, and a repeated follow-up's
command id appends nothing.

Why no replica's move is missed, however many events came since and whichever replica
made them: the mark only moves after every game touched up to it was loaded *after* the
position was read, so each was noted at a version that includes its events up to there
(positions are handed out in commit order), or was made due to the sweep. A move after
the mark whose replica died before its flush is found by the next pass; a move at or
before it was noted by the pass that raised it, whoever made the move and whether its
own note ever reached the table. A game whose recovery fails for a reason nobody foresaw
(logged with its id) is left to the sweep instead: the index makes it due after the
sweep's backoff (``DeadlineIndex.retry_at``, whatever row it had), and a sweep does what
a recovery does (loads the game, runs its follow-ups, notes it), so the sweep tries it
again, longer apart at each failure, until it is mended. The mark goes on past it: a
game that always fails costs a sweep every ``max_backoff`` seconds, not a reload of
every game touched since it. The store or the index being down stops the pass before the
mark of its chunk (the next one goes on from the mark).

``recover`` covers everything up to the head. ``catch_up`` covers up to the head it read
one pass before, so the games it looks at are ``cover_seconds`` old and settled (their
notes flushed, their bots moved) unless their replica died: it seldom runs a follow-up a
live replica is running too (and one that does is a repeat of a command id, appending
nothing). So a start reads only what came since the newest pass of any replica of its
game type (a minute or two of that type's events, however long the platform ran), and a
move costs no statement more: the notes are still flushed apart, in batches.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from parlor.core.errors import NotFound, ParlorError, Unavailable
from parlor.eventstore.cursors import Cursor, heads, partition_key, streams_touched
from parlor.gamehost.drivers.deadlines import DeadlineIndex
from parlor.gamehost.host.host import GameHost, Outcome
from parlor.gamehost.pipeline.pipeline import CLOCK_ACTOR, Pipeline
from parlor.kit.settings import load, setting

log = logging.getLogger("parlor.gamehost.sweeper")

__all__ = ["CLOCK_ACTOR", "Sweeper", "sweep_seconds"]

MAX_TRACKED = 10_000
"""The most games whose failures a sweeper counts (a game that failed once and then
finished is forgotten when it is the oldest)."""


@dataclass(frozen=True)
class ClockSettings:
    sweep_seconds: float = setting(
        "PARLOR_CLOCK_SWEEP_SECONDS",
        "how often each game service replica fires the timeouts that are due",
        2.0,
    )


def sweep_seconds() -> float:
    """The sweep interval from the settings (seconds; a bad value is 2)."""
    value = load(ClockSettings).sweep_seconds
    return value if value > 0 else 2.0


class Sweeper:
    def __init__(
        self,
        host: GameHost[Any, Any, Any],
        deadlines: DeadlineIndex,
        pipeline: Pipeline[Any, Any] | None = None,
        *,
        interval: float | None = None,
        batch: int = 100,
        max_backoff: float = 300.0,
        cover_seconds: float = 60.0,
        chunk: int = 10_000,
    ) -> None:
        self.host = host
        self.deadlines = deadlines
        self.pipeline = pipeline if pipeline is not None else Pipeline.bare(host)
        """Where the sweeper's commands go: the clock's (``tick``, ``walk_away``) and what
        follows them (``after``); a host alone gets ``Pipeline.bare``'s (no turns of its own)."""
        self.interval = interval if interval is not None else sweep_seconds()
        self.batch = batch
        self.max_backoff = max_backoff
        self.cover_seconds = cover_seconds
        self.chunk = chunk
        self._head: Cursor | None = None  # each partition's head, read by the last pass
        """The head read by this replica's last recovery pass (where ``catch_up`` covers to)."""
        self.failures: dict[str, int] = {}
        """Game id -> its sweeps failed in a row on this replica (for the backoff)."""

    async def sweep(self) -> int:
        """One pass over the due games; how many got a timeout from this replica."""
        fired = 0
        seen = self.host.now()
        due = await self.deadlines.due(self.host.category, seen, self.batch)
        for game_id in due:
            try:
                fired += await self._sweep_one(game_id, seen)
            except Unavailable:
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                await self._back_off(game_id, seen, exc)
            else:
                self.failures.pop(game_id, None)
        return fired

    async def _sweep_one(self, game_id: str, seen: datetime) -> int:
        try:
            outcome = await self.pipeline.tick(game_id)
        except NotFound:
            # A row with no game: drop it, leaving no marker that would keep a later
            # game of this id out of the index.
            await self.deadlines.postpone(self.host.category, game_id, seen, None)
            return 0
        fired = 1 if outcome.events else 0
        if outcome.state.clock is None:
            # An untimed game is noted only while a person keeps its bots waiting: if they
            # have walked away, their seat times out and the bots finish the game.
            left = await self.pipeline.walk_away(game_id)
            if left is not None:
                outcome, fired = left, 1
        if not self.host.decider.is_terminal(outcome.state):
            # A bot's turn (after a timeout, or a late command's), Take Four's next round.
            try:
                outcome = await self.pipeline.after(game_id, outcome)
            except ParlorError as exc:
                log.info("after a sweep", extra={"game_id": game_id, "reason": exc.reason})
        # The index learns the game's next deadline (a no-op sweep: another replica fired
        # it, or a move came first).
        await self.host.schedule(game_id, outcome.state, outcome.version)
        return fired

    async def _back_off(self, game_id: str, seen: datetime, exc: Exception) -> None:
        """Log the failed sweep and push the game's row back, longer at each failure."""
        delay = self._failed(game_id)
        reason = exc.reason if isinstance(exc, ParlorError) else type(exc).__name__
        log.warning(
            "sweep failed",
            exc_info=not isinstance(exc, ParlorError),
            extra={"game_id": game_id, "reason": reason, "retry_in": delay},
        )
        until = self.host.now() + timedelta(seconds=delay)
        await self.deadlines.postpone(self.host.category, game_id, seen, until)

    def _failed(self, game_id: str) -> float:
        """Count one more failure of the game; the seconds to wait before the next try
        (``interval * 2**failures``, at most ``max_backoff``)."""
        failures = self.failures.pop(game_id, 0)
        self.failures[game_id] = failures + 1  # the newest last: the oldest go first
        while len(self.failures) > MAX_TRACKED:
            del self.failures[next(iter(self.failures))]
        return float(min(self.interval * 2**failures, self.max_backoff))

    async def recover(self) -> int:
        """Note again every game of this type with an event after the mark, up to the head,
        and run its follow-ups (see the module's doc); how many games it looked at."""
        head = await heads(self.host.store)
        looked = await self._cover(head)
        self._head = head
        return looked

    async def catch_up(self) -> int:
        """``recover`` up to the head read by the previous pass (see the module's doc); how
        many games it looked at."""
        head = await heads(self.host.store)
        looked = 0 if self._head is None else await self._cover(self._head)
        self._head = head
        return looked

    async def _cover(self, through: Cursor) -> int:
        """Recover the games touched from the mark up to ``through``, chunk by chunk, raising
        the mark after each chunk: in each partition of the store's order, from its own mark
        (``partition_key``: the game type's own for partition 0, as before partitions) up to
        its own head. (The host notes to the sweeper's own index: its pending notes are the
        ones ``cover`` writes before the mark.)"""
        category = self.host.category
        prefix = f"{category}-"
        looked = 0
        for partition, until in enumerate(through):
            mark = partition_key(category, partition)
            start = await self.deadlines.covered(mark)
            while start < until:
                end = min(start + self.chunk, until)
                store = self.host.store
                for stream_id in await streams_touched(store, category, start, end, partition):
                    looked += 1
                    await self._recover_one(stream_id[len(prefix) :])
                await self.deadlines.cover(mark, end)
                start = end
        return looked

    async def _recover_one(self, game_id: str) -> None:
        """Load one game, run its follow-ups and note its deadline; if that failed for a
        reason nobody foresaw, log it and leave the game to the sweep, due after a backoff
        (the index being down stops the pass, as the store being down does)."""
        try:
            state, version = await self.host.load(game_id)
            if not self.host.decider.is_terminal(state):
                outcome: Outcome[Any, Any] = Outcome(state, version, ())
                try:
                    outcome = await self.pipeline.after(game_id, outcome)
                except ParlorError as exc:
                    log.info("after recovery", extra={"game_id": game_id, "reason": exc.reason})
                await self.host.schedule(game_id, outcome.state, outcome.version)
        except Unavailable:
            raise
        except asyncio.CancelledError:
            raise
        except Exception:
            delay = self._failed(game_id)
            log.exception(
                "recovery of a game failed", extra={"game_id": game_id, "retry_in": delay}
            )
            until = self.host.now() + timedelta(seconds=delay)
            await self.deadlines.retry_at(self.host.category, game_id, until)
        else:
            self.failures.pop(game_id, None)

    async def run(self) -> None:
        """Sweep forever, every ``interval`` seconds, from the start; recover beside it (once
        the store answers) and, once recovered, catch up every ``cover_seconds``; an outage
        waits for the next pass."""
        async with asyncio.TaskGroup() as tasks:
            recovery = tasks.create_task(self._recover_once())
            every = max(1, round(self.cover_seconds / self.interval))
            sweeps = 0
            while True:
                await self._step(self.sweep, "sweep skipped", "sweep failed")
                sweeps += 1
                if recovery.done() and sweeps % every == 0:
                    await self._step(self.catch_up, "catch-up skipped", "catch-up failed")
                await asyncio.sleep(self.interval)

    async def _recover_once(self) -> None:
        """``recover``, again every ``interval`` seconds until the store answers."""
        while True:
            if await self._step(self.recover, "recovery waits", "recovery failed"):
                return
            await asyncio.sleep(self.interval)

    async def _step(self, step: Callable[[], Awaitable[object]], away: str, failed: str) -> bool:
        """One pass of ``step``; False if the store was away (try again next interval), True
        otherwise, a failure nobody foresaw logged."""
        try:
            await step()
        except Unavailable as exc:
            log.warning(f"{away}: store unavailable", extra={"reason": exc.reason})
            return False
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(failed)
        return True
