"""The sweeper: fires the timeouts of games nobody touches, on every replica.

Every ``interval`` seconds (``PARLOR_CLOCK_SWEEP_SECONDS``, 2 by default) it reads the
games whose deadline is due from the deadline index and sends each a ``Tick`` through
the game host: the clock layer decides the timeouts on the game's own events and the
host appends them with the version they were decided on. Two replicas sweeping the same
game both decide on version v; one append wins, the other meets a conflict, decides
again on the new version, finds nothing due and appends nothing. So every replica may
sweep, with no leader. After a sweep the game's follow-ups run (``after``: a bot whose
turn it now is, Take Four's next round).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from parlor.core.errors import NotFound, ParlorError, Unavailable
from parlor.gamehost.clocks import Tick
from parlor.gamehost.deadlines import DeadlineIndex
from parlor.gamehost.host import GameHost, Outcome
from parlor.kit.settings import load, setting

log = logging.getLogger("parlor.gamehost.sweeper")

CLOCK_ACTOR = "parlor:clock"

After = Callable[[str, Outcome[Any, Any]], Awaitable[Outcome[Any, Any]]]


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
        after: After | None = None,
        *,
        interval: float | None = None,
        batch: int = 100,
    ) -> None:
        self.host = host
        self.deadlines = deadlines
        self.after = after
        self.interval = interval if interval is not None else sweep_seconds()
        self.batch = batch

    async def sweep(self) -> int:
        """One pass over the due games; how many got a timeout from this replica."""
        fired = 0
        due = await self.deadlines.due(self.host.category, self.host.now(), self.batch)
        for game_id in due:
            try:
                await self.host.load(game_id)  # catch this replica's cache up first
                outcome = await self.host.execute(game_id, Tick(), actor=CLOCK_ACTOR)
            except NotFound:
                await self.deadlines.schedule(self.host.category, game_id, None, 2**62)
                continue
            except Unavailable:
                raise
            except ParlorError as exc:
                log.warning("sweep failed", extra={"game_id": game_id, "reason": exc.reason})
                continue
            if outcome.events:
                fired += 1
            if self.after is not None and not self.host.decider.is_terminal(outcome.state):
                # A bot's turn (after a timeout, or a late command's), Take Four's next round.
                try:
                    outcome = await self.after(game_id, outcome)
                except ParlorError as exc:
                    log.info("after a sweep", extra={"game_id": game_id, "reason": exc.reason})
            # The index learns the game's next deadline (a no-op sweep: another replica fired
            # it, or a move came first).
            await self.host.schedule(game_id, outcome.state, outcome.version)
        return fired

    async def run(self) -> None:
        """Sweep forever, every ``interval`` seconds; an outage waits for the next pass."""
        while True:
            try:
                await self.sweep()
            except Unavailable as exc:
                log.warning("sweep skipped: store unavailable", extra={"reason": exc.reason})
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweep failed")
            await asyncio.sleep(self.interval)
