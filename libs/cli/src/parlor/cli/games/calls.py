"""What every adapter shares: the game's client from ``parlor-client``, and reading a game.

Every game service has the same ``GetGame``, ``GetHistory``, ``WatchGame``, ``ReplayGame``
and ``ListGames`` (``parlor.client.GameClient`` serves them for any game); an adapter adds
creating, playing, drawing and notation. Retries, resumed watches and errors
(``parlor.client.ParlorError``) come from the client.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.protobuf.json_format import MessageToDict

from parlor.client import GameClient
from parlor.common.v1 import common_pb2


class ServiceCalls:
    """Reading a game from its service through ``api``, the game's ``GameClient``."""

    live = False
    """Redraw the game as events arrive while the player types (simultaneous play)."""

    def __init__(self, api: GameClient[Any]) -> None:
        self.api = api

    async def create(self, me: str, opponents: list[str], name: str) -> Any:
        seats = [common_pb2.Seat(player_id=me, display_name=name or me)]
        seats += [common_pb2.Seat(player_id=p, display_name=p) for p in opponents]
        return await self.api.create_game(seats)

    async def get(self, game_id: str, version: int = 0) -> Any:
        return await self.api.get_game(game_id, version)

    async def history(self, game_id: str) -> list[Any]:
        return await self.api.history(game_id)

    def watch(self, game_id: str, after_version: int = 0) -> AsyncGenerator[tuple[Any, Any], None]:
        """Every event after ``after_version``, then each new one, until the game ends
        (reopened after an idle close: the client's ``GameClient.watch``)."""
        return self.api.watch(game_id, after_version)

    def replay(self, game_id: str, pace_ms: int) -> AsyncGenerator[tuple[Any, Any], None]:
        return self.api.replay(game_id, pace_ms)

    async def list_games(
        self, player_id: str, finished_only: bool, limit: int, in_progress_only: bool = False
    ) -> list[Any]:
        return await self.api.list_games(
            player_id,
            finished_only=finished_only,
            in_progress_only=in_progress_only,
            page_size=limit,
        )

    async def resign(self, game_id: str, command_id: str) -> Any:
        response = await self.api.command("Resign", game_id=game_id, command_id=command_id)
        return response.game

    def game_id(self, game: Any) -> str:
        return str(game.game_id)

    def version(self, game: Any) -> int:
        return int(game.version)

    def event_version(self, event: Any) -> int:
        return int(event.info.version)

    def event_dict(self, event: Any) -> dict[str, Any]:
        """Every field, zeros included (seat 0, row 0), with the proto's own field names."""
        return MessageToDict(
            event, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )
