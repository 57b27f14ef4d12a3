"""The calls every game service answers alike, for the adapters to share.

Each game's proto has the same ``GetGame``, ``GetHistory``, ``WatchGame``,
``ReplayGame`` and ``ListGames`` requests and responses (only the package
differs), so an adapter names its generated module and stub class and inherits
these; what differs (creating, playing, drawing, notation) stays in the adapter.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict

from parlor.kit.status import reason_of


class ServiceCalls:
    """Reading a game from its service; ``pb`` is the game's ``*_pb2`` module."""

    pb: ModuleType
    stub_type: Any

    def __init__(self, channel: Any, metadata: Any) -> None:
        self.stub = self.stub_type(channel)
        self.metadata = metadata

    def get(self, game_id: str, version: int = 0) -> Any:
        request = self.pb.GetGameRequest(game_id=game_id, version=version)
        return self.stub.GetGame(request, metadata=self.metadata).game

    def history(self, game_id: str) -> list[Any]:
        request = self.pb.GetHistoryRequest(game_id=game_id)
        return list(self.stub.GetHistory(request, metadata=self.metadata).events)

    def watch(self, game_id: str, after_version: int = 0) -> Iterator[tuple[Any, Any]]:
        """Every event after ``after_version``, then each new one, until the game ends.

        A server ends a stream that has been idle too long (``STREAM_IDLE``); the watch is
        then opened again after the last event seen, so a long wait for a move goes on.
        """
        while True:
            request = self.pb.WatchGameRequest(game_id=game_id, after_version=after_version)
            try:
                for event, game in self._stream(
                    self.stub.WatchGame(request, metadata=self.metadata)
                ):
                    after_version = self.event_version(event)
                    yield event, game
                return
            except grpc.RpcError as error:
                if reason_of(error) != "STREAM_IDLE":
                    raise

    def replay(self, game_id: str, pace_ms: int) -> Iterator[tuple[Any, Any]]:
        request = self.pb.ReplayGameRequest(game_id=game_id, pace_ms=pace_ms)
        yield from self._stream(self.stub.ReplayGame(request, metadata=self.metadata))

    def list_games(self, player_id: str, finished_only: bool, limit: int) -> list[Any]:
        request = self.pb.ListGamesRequest(
            player_id=player_id, finished_only=finished_only, page_size=limit
        )
        return list(self.stub.ListGames(request, metadata=self.metadata).games)

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

    @staticmethod
    def _stream(call: Any) -> Iterator[tuple[Any, Any]]:
        try:
            for item in call:
                yield item.event, item.game
        finally:
            call.cancel()  # a caller that stops early ends the server stream too
