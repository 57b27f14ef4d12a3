"""A bot seat whose plans are thought in the process's bot workers (``thinking.think``: off
the event loop and its GIL), then run to their end one command at a time
(``botgames.SeatBot``, as a rules' own planning seat, Take Four's ``BotSeat``, runs them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from parlor.gamehost.bots.thinking import think

C = TypeVar("C")


class PooledSeat(Generic[C]):
    """A seat's bot of search budget ``budget``: ``plan(budget, seen)`` (a module's function,
    so that a worker can be handed it) is its whole plan from the seat's view, thought in a
    bot worker (``think``) or, for a runner without them, in the caller's thread
    (``next_command``)."""

    def __init__(self, plan: Callable[[int, Any], list[C]], budget: int) -> None:
        self.plan, self.budget = plan, budget
        self._pending: list[C] = []

    async def think(self, seen: Any) -> C | None:
        if not self._pending:
            self._pending = await think(self.plan, self.budget, seen)
        return self._pending.pop(0) if self._pending else None

    def next_command(self, seen: Any) -> C | None:
        """Planned here, in the caller's thread (for a runner without the bot workers)."""
        if not self._pending:
            self._pending = self.plan(self.budget, seen)
        return self._pending.pop(0) if self._pending else None

    def refused(self) -> None:
        self._pending = []

    def new_round(self) -> None:
        self._pending = []
