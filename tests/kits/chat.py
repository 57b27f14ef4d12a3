"""What the chat tests over gRPC share: a Connect 4x4 game of two people."""

from __future__ import annotations

import secrets
from typing import Any

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc


async def two_people_game(platform: Any) -> tuple[str, str, str]:
    """A Connect 4x4 game of two new players, seated by a platform service; its id and their
    ids (the first moves first)."""
    ada, bob = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "bob"))
    async with platform.service_channel() as service:
        made = await c4_grpc.Connect4x4ServiceStub(service).CreateGame(
            c4.CreateGameRequest(
                seats=[common_pb2.Seat(player_id=ada), common_pb2.Seat(player_id=bob)],
                config=c4.Config(players=2, first_seat=0),
            )
        )
    return made.game.game_id, ada, bob
