"""Correspondence made usable: which of a player's games wait for them, soonest first.

A player's games in progress (``ListGames`` by player, ``in_progress_only``, for each
game type), each read with ``GetGame``: every game's view says whose turn it is
(``seats_to_move``) and when each running clock runs out (``clocks``). A game waits for
the player when one of their seats is to move; games waiting for them come first, each
group by its earliest deadline (games without one last), then by id.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from parlor.cli.games import adapter
from parlor.client import ParlorClient
from parlor.client.errors import Unimplemented

MAX_GAMES = 100
"""Games in progress read per game type (the open-games cap is 20 per type)."""
READS_AT_ONCE = 8


@dataclass(frozen=True)
class Waiting:
    game_type: str
    game_id: str
    version: int
    my_turn: bool
    deadline: dt.datetime | None
    """The player's deadline when it is their turn, else the game's next one (None: no clock
    runs)."""
    players: tuple[str, ...]


def waiting_of(game_type: str, game: Any, me: str) -> Waiting:
    """What a game's view says of ``me``'s turn in it."""
    seats = [getattr(s, "seat", s) for s in game.seats]
    mine = {i for i, s in enumerate(seats) if s.player_id == me}
    to_move = set(game.seats_to_move)
    my_turn = bool(mine & to_move)
    wanted = mine & to_move if my_turn else to_move
    deadlines = [
        c.deadline.ToDatetime(dt.UTC)
        for c in game.clocks.seats
        if c.seat in wanted and c.running and c.HasField("deadline")
    ]
    return Waiting(
        game_type,
        game.game_id,
        game.version,
        my_turn,
        min(deadlines) if deadlines else None,
        tuple(s.display_name or s.player_id for s in seats),
    )


def ordered(games: Iterable[Waiting]) -> list[Waiting]:
    """Your turn first, earliest deadline first (none last), then by game id."""
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    return sorted(games, key=lambda w: (not w.my_turn, w.deadline or far, w.game_id))


async def my_games(parlor: ParlorClient, me: str, game_types: Sequence[str]) -> list[Waiting]:
    """``me``'s games in progress of every type the platform serves, ordered (``ordered``)."""
    found: list[Waiting] = []
    gate = asyncio.Semaphore(READS_AT_ONCE)
    for game_type in game_types:
        api = adapter(game_type, parlor)
        try:
            listed = await api.list_games(me, False, MAX_GAMES, in_progress_only=True)
        except Unimplemented:
            continue  # a game type this platform does not serve

        async def read(game_id: str, api: Any = api, game_type: str = game_type) -> Waiting:
            async with gate:
                return waiting_of(game_type, await api.get(game_id), me)

        found += await asyncio.gather(*(read(g.game_id) for g in listed))
    return ordered(w for w in found if w.version)
