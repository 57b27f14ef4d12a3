"""Correspondence made usable: which of a player's games wait for them, soonest first.

The server orders them: ``ListGames`` with ``my_turn_first`` (for each game type) gives the
player's games in progress, those waiting for one of their seats first, earliest deadline
first (none running: after those with one), then the rest, each with ``to_move`` and the
player's ``deadline``; one call per game type, no game read one by one. The game types'
lists are merged here in the same order.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from parlor.client import ParlorClient
from parlor.client.errors import Unimplemented

MAX_GAMES = 100
"""Games in progress read per game type (the open-games cap is 20 per type)."""


@dataclass(frozen=True)
class Waiting:
    game_type: str
    game_id: str
    version: int
    my_turn: bool
    deadline: dt.datetime | None
    """The player's deadline when it is their turn (None: no clock of theirs runs, or not
    their turn)."""
    players: tuple[str, ...]


def waiting_of(game_type: str, summary: Any) -> Waiting:
    """What a ``my_turn_first`` listing says of the caller's turn in one game."""
    deadline = summary.deadline.ToDatetime(dt.UTC) if summary.HasField("deadline") else None
    return Waiting(
        game_type,
        summary.game_id,
        summary.version,
        summary.to_move,
        deadline,
        tuple(s.display_name or s.player_id for s in summary.seats),
    )


def ordered(games: Iterable[Waiting]) -> list[Waiting]:
    """Your turn first, earliest deadline first (none last); ties as the server listed them."""
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    return sorted(games, key=lambda w: (not w.my_turn, w.deadline or far))


async def my_games(parlor: ParlorClient, game_types: Sequence[str]) -> list[Waiting]:
    """The caller's games in progress of every type the platform serves, ordered (``ordered``)."""
    found: list[Waiting] = []
    for game_type in game_types:
        try:
            listed = await parlor.game(game_type).list_games(
                in_progress_only=True, page_size=MAX_GAMES, my_turn_first=True
            )
        except (Unimplemented, KeyError):
            continue  # a game type this platform does not serve (or this client does not know)
        found += (waiting_of(game_type, summary) for summary in listed)
    return ordered(found)
