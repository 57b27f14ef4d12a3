"""A ticket: one player's request for a game, waiting in the pool."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime

from parlor.core.errors import InvalidArgument

MIN_PLAYERS = 2


@dataclass(frozen=True)
class Ticket:
    """One request for a game of ``game_type`` with ``min_players``..``max_players`` seats.

    ``rating`` is the player's rating for that game type (the scoring service's value,
    or 1500 for a newcomer). Tickets with a ``lobby`` (invite code) match only tickets
    with the same code, and ignore ratings. ``created_at`` must be timezone-aware.

    ``time_control`` is any hashable value (the service passes its ``TimeControl``):
    tickets share a table only if theirs are equal. ``bots_at_once``: empty seats may be
    filled with bots in the ticket's first round, not after ``Policy.bot_fill_after``, and
    the ticket accepts any count in its range at once (people are still preferred to bots).
    ``bot_level`` (1 = weakest) names the bots' level; None: by the table's rating.

    ``lobby_host``, for a lobby ticket: the player whose lobby it is. A lobby waits for its
    host: in a round in which the host has no unexpired ticket in the lobby (they left it,
    or theirs expires now), its other tickets are closed (``Round.closed``), never seated
    without the host. None: the lobby's host is not known, and its tickets are matched
    among themselves.
    """

    id: str
    player_id: str
    game_type: str
    min_players: int
    max_players: int
    rating: float
    created_at: datetime
    lobby: str | None = None
    time_control: Hashable = None
    bots_at_once: bool = False
    bot_level: int | None = None
    lobby_host: str | None = None

    def __post_init__(self) -> None:
        for name in ("id", "player_id", "game_type"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise InvalidArgument(
                    f"a ticket's {name} is a non-empty string", reason="BAD_TICKET"
                )
        if self.lobby is not None and not (isinstance(self.lobby, str) and self.lobby):
            raise InvalidArgument("an invite code is a non-empty string", reason="BAD_TICKET")
        if self.lobby_host is not None and not (
            self.lobby is not None and isinstance(self.lobby_host, str) and self.lobby_host
        ):
            raise InvalidArgument(
                "a lobby's host is a player id, named only by a lobby ticket", reason="BAD_TICKET"
            )
        counts = (self.min_players, self.max_players)
        if any(isinstance(c, bool) or not isinstance(c, int) for c in counts) or not (
            MIN_PLAYERS <= self.min_players <= self.max_players
        ):
            raise InvalidArgument(
                f"player counts must satisfy {MIN_PLAYERS} <= min <= max", reason="BAD_PLAYER_COUNT"
            )
        if not math.isfinite(self.rating):
            raise InvalidArgument("a ticket's rating must be a finite number", reason="BAD_RATING")
        if self.created_at.tzinfo is None:
            raise InvalidArgument("ticket times must be timezone-aware", reason="BAD_TIME")
        if not isinstance(self.time_control, Hashable):
            raise InvalidArgument("a time control is a hashable value", reason="BAD_TICKET")
        if not isinstance(self.bots_at_once, bool):
            raise InvalidArgument("bots_at_once is true or false", reason="BAD_TICKET")
        if self.bots_at_once and self.lobby is not None:
            raise InvalidArgument(
                "bots at once are for public tickets: a lobby waits for its holders",
                reason="BAD_TICKET",
            )
        level = self.bot_level
        if level is not None and (type(level) is not int or level < 1):
            raise InvalidArgument("a bot level is a whole number from 1", reason="BAD_TICKET")

    @property
    def priority(self) -> tuple[datetime, str]:
        """Who is served first: the oldest ticket, then the smallest id."""
        return (self.created_at, self.id)
