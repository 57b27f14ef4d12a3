"""When each game type's next matching round is due: when something changed, not on a timer.

A round is a function of the waiting tickets and the time (``parlor.matching``), so it
can only come out differently from the last one when a ticket was added or cancelled, or
when time reaches the next moment the policy makes a difference (a wait crossing
``accept_minimum_after``, ``bot_fill_after`` or ``expires_after``, two rating windows
reaching each other: ``rounds.next_change``). Rounds used to run every
``PARLOR_MATCHMAKING_ROUND_SECONDS`` for every game type with a waiting ticket, on every
replica, whether or not anything had changed: at human pace, a transaction of five
statements per game type and replica several times a second for tickets waiting for
partners who were still playing.

Now a game type's round is due:

- when this process changed its tickets (``changed``: CreateTicket, CreateLobby,
  JoinLobby, CancelTicket, after their commit), but never sooner than ``gap`` (the round
  pause) after its previous round, so tickets arriving together still meet in one round;
- at the next moment time alone could change its outcome, as the last round worked out;
- again after ``gap`` when another replica held its round (that round may have read the
  tables before this process's change committed), when a ticket changed during the
  round, or when the round failed;
- and every ``idle`` seconds for each game type with waiting tickets (one statement for
  all): the safety net for changes no one here was told of (a replica that stopped
  between a ticket's commit and its round).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from datetime import timedelta

TIMER_SLACK_SECONDS = 0.005
"""Added to a deadline: a loop timer may fire a little early, and a round a moment before
its deadline would find nothing new and sleep until the next change."""


class RoundSchedule:
    """The game types' due times on the loop's clock; ``run_rounds`` waits on ``due``."""

    def __init__(
        self,
        game_types: Sequence[str],
        gap: float,
        idle: float,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.game_types = tuple(game_types)
        self.gap = gap
        self.idle = max(idle, gap)
        self._clock = clock
        start = self.now()
        # The first look is a sweep at once, as a replica that starts finds waiting tickets.
        self._sweep_at = start
        self._at: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._changes: dict[str, int] = dict.fromkeys(self.game_types, 0)
        self._wake = asyncio.Event()

    def now(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    def changed(self, game_type: str) -> None:
        """This process added or cancelled a ticket of ``game_type`` (committed): a round is
        due, at once unless its last round was less than ``gap`` ago."""
        if game_type not in self._changes:
            return
        self._changes[game_type] += 1
        self._due(game_type, self._last.get(game_type, float("-inf")) + self.gap)
        self._wake.set()

    def changes(self, game_type: str) -> int:
        """A count of ``changed`` calls, to tell whether one came during a round."""
        return self._changes[game_type]

    def _due(self, game_type: str, at: float) -> None:
        at = max(at, self.now())
        current = self._at.get(game_type)
        if current is None or at < current:
            self._at[game_type] = at

    def started(self, game_type: str) -> None:
        """A round of ``game_type`` starts now: it is no longer due."""
        self._last[game_type] = self.now()
        self._at.pop(game_type, None)

    def ran(self, game_type: str, next_change: timedelta | None, changes_before: int) -> None:
        """The round that ``started`` ran: due next when time alone could change it (None:
        not by time), or after ``gap`` if a ticket changed meanwhile."""
        last = self._last.get(game_type, self.now())
        if self._changes[game_type] != changes_before:
            self._due(game_type, last + self.gap)
        elif next_change is not None:
            # From now, not the round's start: its clock was read after its locks, and a
            # round a little late finds what one on time would.
            at = self.now() + next_change.total_seconds() + TIMER_SLACK_SECONDS
            self._due(game_type, max(at, last + self.gap))

    def again(self, game_type: str) -> None:
        """The round did not run (another replica held it) or failed: due after ``gap``."""
        self._due(game_type, self._last.get(game_type, self.now()) + self.gap)

    def swept(self, waiting: Sequence[str]) -> None:
        """The idle sweep found these game types with waiting tickets: each is due now (but
        not sooner than ``gap`` after its last round); the next sweep after ``idle``."""
        self._sweep_at = self.now() + self.idle
        for game_type in waiting:
            if game_type in self._changes:
                self._due(game_type, self._last.get(game_type, float("-inf")) + self.gap)

    @property
    def sweep_due(self) -> bool:
        return self.now() >= self._sweep_at

    def next_at(self, game_type: str) -> float | None:
        """When ``game_type``'s round is due on the loop's clock (None: not by itself)."""
        return self._at.get(game_type)

    async def due(self) -> list[str]:
        """Wait until a round is due or the sweep is; the game types due now, in order
        (empty: only the sweep is due)."""
        while True:
            now = self.now()
            due = [g for g in self.game_types if self._at.get(g, float("inf")) <= now]
            if due or now >= self._sweep_at:
                return due
            wake = min([self._sweep_at, *self._at.values()])
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wake - now)
