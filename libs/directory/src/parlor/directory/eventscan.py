"""``EventScan``: the game directory read from every event of the store at each call, for a
store without the directory's tables (the in-memory store of unit tests): what
``Directory`` (``parlor.directory.projection``) lists, it lists.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import AsyncIterator, Sequence

from google.protobuf.message import Message

from parlor.accounts import ACCOUNT_CATEGORY, PLAYER_PREFIX, guests_claimed
from parlor.admission.privacy import Privacy
from parlor.common.v1 import common_pb2
from parlor.directory.listed import (
    GAME_FINISHED,
    SEATS_TAKEN,
    Listed,
    check_limit,
    departures_by_type,
    holds,
)
from parlor.eventstore import EventStore
from parlor.runtime.queue import GameQueue


class EventScan:
    """The directory read from every event of the store at each call (no tables needed):
    for the in-memory store of unit tests, where a scan costs nothing worth saving."""

    def __init__(
        self, store: EventStore, category: str, departures: Sequence[type[Message]] = ()
    ) -> None:
        self.store = store
        self.prefix = category + "-"
        self.departures = departures_by_type(departures)
        self._players = GameQueue()  # one claim at a time per player

    async def _games(self) -> dict[str, Listed]:
        """Every game of the type by stream id, folded as ``Directory._fold`` folds them."""
        games: dict[str, Listed] = {}
        position = 1
        while batch := await self.store.read_all(position, 1000):
            for event in batch:
                position = event.position + 1
                stream_id = event.stream_id
                if not stream_id.startswith(self.prefix):
                    continue
                if event.type == SEATS_TAKEN and stream_id not in games:
                    seats = common_pb2.SeatsTaken.FromString(event.data).seats
                    privacy = Privacy.of(event.metadata.extra)
                    games[stream_id] = Listed(
                        stream_id[len(self.prefix) :],
                        tuple(s.player_id for s in seats),
                        tuple(s.display_name for s in seats),
                        event.recorded_at,
                        None,
                        "",
                        event.version,
                        private=privacy.private,
                        findable=privacy.findable,
                    )
                elif event.type == GAME_FINISHED and stream_id in games:
                    reason = common_pb2.GameFinished.FromString(event.data).reason
                    games[stream_id] = dataclasses.replace(
                        games[stream_id],
                        finished_at=event.recorded_at,
                        finish_reason=reason,
                        last_version=event.version,
                    )
                elif event.type in self.departures and stream_id in games:
                    game = games[stream_id]
                    seat = self.departures[event.type].FromString(event.data).seat  # type: ignore[attr-defined]
                    player = game.players[seat] if 0 <= seat < len(game.players) else None
                    if player is not None and player not in game.departed:
                        games[stream_id] = dataclasses.replace(
                            game, departed=(*game.departed, player)
                        )
        return games

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
        """As ``Directory.list``."""
        check_limit(limit)
        after = None if before is None else (before[0], self.prefix + before[1])
        ids = await self._ids_of(player_id) if player_id else ()
        viewers = await self._ids_of(viewer) if viewer else ()
        chosen = sorted(
            (
                (game.created_at, stream_id, game)
                for stream_id, game in (await self._games()).items()
                if (not player_id or any(i in game.players for i in ids))
                and not (
                    player_id
                    and finished is False
                    and not any(i in game.players and holds(game, i) for i in ids)
                )
                and (since is None or game.created_at >= since)
                and (until is None or game.created_at < until)
                and (finished is None or game.finished == finished)
                and (after is None or (game.created_at, stream_id) < after)
                and game.shown_to(viewer, player_id, viewers, ids)
            ),
            key=lambda row: (row[0], row[1]),
            reverse=True,
        )
        return [game for _, _, game in chosen[:limit]]

    async def _ids_of(self, player_id: str) -> tuple[str, ...]:
        """As ``directorytables.ids_of``: the player, and an account's claimed guest ids."""
        if not player_id.startswith(PLAYER_PREFIX):
            return (player_id,)
        events = await self.store.read_stream(f"{ACCOUNT_CATEGORY}-{player_id}")
        return (player_id, *guests_claimed((e.type, e.data) for e in events))

    async def open_games(self, player_id: str, at_most: int) -> int:
        games = (await self._games()).values()
        held = sum(1 for game in games if player_id in game.players and holds(game, player_id))
        return min(held, at_most)

    @contextlib.asynccontextmanager
    async def claiming(self, player_id: str, game_id: str, at_most: int) -> AsyncIterator[int]:
        """As ``OpenGames.claiming``: one process holds the store, and a game it creates is
        in its events at once, so one creation per player at a time is the whole claim."""
        async with self._players.turn(player_id):
            yield await self.open_games(player_id, at_most)
