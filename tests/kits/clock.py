"""A server's clock moved by hand, for tests of timed games (a ``now`` for ``GameHost``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class FakeNow:
    """The server's clock, moved by hand."""

    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)
