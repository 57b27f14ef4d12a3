"""The knobs of matchmaking: rating windows, patience, bot fill and expiry."""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta

from parlor.core.errors import InvalidArgument
from parlor.matching.ticket import Ticket

BOT_PREFIX = "bot:"


@dataclass(frozen=True)
class Policy:
    """How a pool forms matches; every duration is measured from a ticket's ``created_at``.

    - rating window: ``min(window_cap, window_base + window_growth * seconds waited)``;
      two public tickets may share a table only if their ratings differ by no more than
      BOTH tickets' windows.
    - ``accept_minimum_after``: before it a ticket only joins a full table (its maximum
      count); after it, any count in its range. A ticket with ``bots_at_once`` accepts
      any count in its range at once: it takes its minimum now with bots, so people too.
    - ``bot_fill_after``: after it a ticket may be seated with bots (``None``: never); a
      ticket with ``bots_at_once`` may be at once, whatever this says.
    - ``expires_after``: after it a ticket is dropped, never matched.
    - ``bot_levels``: rating thresholds; a bot's level is 1 + how many thresholds the
      table's average human rating reaches.
    """

    window_base: float = 100.0
    window_growth: float = 10.0
    window_cap: float = 800.0
    accept_minimum_after: timedelta = timedelta(seconds=30)
    bot_fill_after: timedelta | None = timedelta(seconds=60)
    expires_after: timedelta = timedelta(minutes=10)
    max_players: int = 8
    bot_levels: tuple[float, ...] = (1200.0, 1500.0, 1800.0)

    def __post_init__(self) -> None:
        numbers = (self.window_base, self.window_growth, self.window_cap)
        if not all(math.isfinite(n) and n >= 0.0 for n in numbers):
            raise InvalidArgument("window settings are non-negative numbers", reason="BAD_POLICY")
        if self.window_cap < self.window_base:
            raise InvalidArgument("the window cap is below its base", reason="BAD_POLICY")
        if self.accept_minimum_after < timedelta(0) or self.expires_after <= timedelta(0):
            raise InvalidArgument("waits must be non-negative", reason="BAD_POLICY")
        if self.bot_fill_after is not None and self.bot_fill_after < self.accept_minimum_after:
            raise InvalidArgument(
                "bot fill cannot come before accepting the minimum count", reason="BAD_POLICY"
            )
        if self.max_players < 2:
            raise InvalidArgument("a table has at least two seats", reason="BAD_POLICY")
        if list(self.bot_levels) != sorted(self.bot_levels):
            raise InvalidArgument("bot level thresholds must be ascending", reason="BAD_POLICY")

    def waited(self, ticket: Ticket, now: datetime) -> timedelta:
        """How long the ticket has waited (never negative, even if ``now`` lags a replica)."""
        return max(now - ticket.created_at, timedelta(0))

    def window(self, ticket: Ticket, now: datetime) -> float:
        """How far (in rating points) from its own rating this ticket will accept a player."""
        return self.window_after(self.waited(ticket, now))

    def counts(self, ticket: Ticket, now: datetime) -> tuple[int, int]:
        """The table sizes the ticket accepts now: its maximum only, until it grows impatient.

        A ticket asking for bots at once is impatient from the start: it would sit at its
        minimum count with bots now, so it sits at any count in its range with people.
        """
        return self.counts_after(ticket, self.waited(ticket, now))

    def bots_allowed(self, ticket: Ticket, now: datetime) -> bool:
        """Whether the ticket may be seated with bots: it asked for them at once, or waited."""
        return ticket.bots_at_once or self.bots_allowed_after(self.waited(ticket, now))

    def expired(self, ticket: Ticket, now: datetime) -> bool:
        return self.waited(ticket, now) >= self.expires_after

    def window_after(self, waited: timedelta) -> float:
        return min(self.window_cap, self.window_base + self.window_growth * waited.total_seconds())

    def counts_after(self, ticket: Ticket, waited: timedelta) -> tuple[int, int]:
        if ticket.bots_at_once or waited >= self.accept_minimum_after:
            return (ticket.min_players, ticket.max_players)
        return (ticket.max_players, ticket.max_players)

    def bots_allowed_after(self, waited: timedelta) -> bool:
        return self.bot_fill_after is not None and waited >= self.bot_fill_after

    def bot_seat(self, average_rating: float, level: int | None = None) -> str:
        """The placeholder seat of a bot: of ``level``, or suited to the table's average rating."""
        if level is None:
            level = 1 + bisect_right(self.bot_levels, average_rating)
        return f"{BOT_PREFIX}{level}"
