"""A server's clock moved by hand, for tests of timed games (a ``now`` for ``GameHost``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class FakeNow:
    """The server's clock, moved by hand."""

    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


def timed_host(game: Any, now: FakeNow) -> Any:
    """A game type's host on memory stores, on the hand-moved clock ``now``, with a deadline
    index (so its sweeper can fire timeouts): how the timed-game tests build one."""
    from parlor.eventstore import InMemoryEventStore
    from parlor.gamehost import GameHost
    from parlor.gamehost.drivers.deadlines import MemoryDeadlines

    return GameHost(
        game.category,
        game.decider,
        game.codec,
        InMemoryEventStore(),
        now=now,
        deadlines=MemoryDeadlines(),
    )
