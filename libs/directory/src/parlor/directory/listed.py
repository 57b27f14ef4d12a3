"""A game as a listing shows it (``Listed``), where a game type's games are listed from
(``GameList``: the directory's tables, ``parlor.directory.projection``, or the events
themselves, ``parlor.directory.eventscan``) and which unfinished games count as a player's
open ones (``holds``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from google.protobuf.message import Message

from parlor.admission.opengames import Claims
from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.gametypes.seats import BOT_PREFIX

SEATS_TAKEN = common_pb2.SeatsTaken.DESCRIPTOR.full_name
GAME_FINISHED = common_pb2.GameFinished.DESCRIPTOR.full_name
MAX_PAGE = 500


@dataclass(frozen=True, slots=True)
class Listed:
    """One game in a listing."""

    game_id: str
    players: tuple[str, ...]
    names: tuple[str, ...]
    created_at: dt.datetime
    finished_at: dt.datetime | None
    finish_reason: str
    last_version: int
    departed: tuple[str, ...] = ()
    """The players who left it while the others played on (``GameType.departures``)."""
    private: bool = False
    findable: tuple[str, ...] = ()
    """The players who chose to be found in it by their id (``parlor.admission.privacy``)."""

    def shown_to(
        self,
        viewer: str | None,
        player_id: str | None,
        viewers: Sequence[str] = (),
        ids: Sequence[str] = (),
    ) -> bool:
        """Whether a listing for ``viewer`` (None: a service, who sees all) filtered by
        ``player_id`` shows the game: a private one only to its seats; another player's
        games only where they chose to be findable. ``viewers``, ``ids``: every id of the
        viewer and of the player (an account's guest ids besides its own; default: it)."""
        if viewer is None:
            return True
        if self.private and not any(v in self.players for v in viewers or (viewer,)):
            return False
        if not player_id or player_id == viewer:
            return True
        return any(i in self.findable for i in ids or (player_id,))

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


class GameList(Claims, Protocol):
    """Where a game type's games are listed and a player's unfinished ones counted: the
    directory's tables (``Directory``) or the events themselves (``EventScan``)."""

    async def list(
        self,
        *,
        player_id: str | None = None,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        finished: bool | None = None,
        limit: int = 50,
        before: tuple[dt.datetime, str] | None = None,
        viewer: str | None = None,
    ) -> list[Listed]:
        """Newest first; ``finished`` True: finished games only, False: in progress only,
        None: all; ``before`` (created_at, game_id) continues a previous page; ``viewer`` the
        player the listing is for (``Listed.shown_to``; None: a service, everything)."""
        ...


def check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidArgument(f"page size must be 1 to {MAX_PAGE}", reason="INVALID_PAGE_SIZE")


def holds(game: Listed, player_id: str) -> bool:
    """Whether ``game`` counts among ``player_id``'s open games (``HOLDS``,
    ``directorytables``): unfinished, and not one they left while another person (no bot,
    not departed) plays on."""
    if game.finished:
        return False
    if player_id not in game.departed:
        return True
    return not any(not p.startswith(BOT_PREFIX) and p not in game.departed for p in game.players)


def departures_by_type(departures: Sequence[type[Message]]) -> dict[str, type[Message]]:
    return {message.DESCRIPTOR.full_name: message for message in departures}
