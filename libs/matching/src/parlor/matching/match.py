"""What a matchmaking round produces: matches, and every ticket that leaves the pool."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from parlor.matching.policy import BOT_PREFIX


@dataclass(frozen=True)
class Match:
    """A table ready to play: seats in order (humans oldest ticket first, then bots).

    ``seats`` holds player ids and bot placeholders ``"bot:<level>"``; ``tickets`` the
    consumed ticket ids, aligned with the human seats. ``average_rating`` is over the
    humans. ``key`` (the first ticket's id) is unique per match, since a ticket is
    consumed once: a service can use it as the match id or message id.
    ``time_control`` is the one every ticket of the match named (they are equal).
    """

    game_type: str
    seats: tuple[str, ...]
    tickets: tuple[str, ...]
    average_rating: float
    lobby: str | None = None
    time_control: Hashable = None

    @property
    def key(self) -> str:
        return self.tickets[0]

    @property
    def players(self) -> tuple[str, ...]:
        return self.seats[: len(self.tickets)]

    @property
    def bots(self) -> int:
        return sum(seat.startswith(BOT_PREFIX) for seat in self.seats)


@dataclass(frozen=True)
class Round:
    """One round of matching: persist it in one transaction (delete ``consumed``, insert matches).

    ``expired`` tickets timed out; ``withdrawn`` are the other tickets of players who
    were just matched (a player plays one game at a time); ``closed`` are the tickets of
    lobbies whose host left them (``Ticket.lobby_host`` has no unexpired ticket there).
    """

    matches: tuple[Match, ...]
    expired: tuple[str, ...]
    withdrawn: tuple[str, ...]
    closed: tuple[str, ...] = ()

    @property
    def matched(self) -> tuple[str, ...]:
        return tuple(ticket for match in self.matches for ticket in match.tickets)

    @property
    def consumed(self) -> tuple[str, ...]:
        """Every ticket id that leaves the pool in this round."""
        return self.matched + self.withdrawn + self.expired + self.closed
