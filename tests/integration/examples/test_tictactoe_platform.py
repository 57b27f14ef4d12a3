"""The example fourth game served by the platform's own server on real PostgreSQL and NATS.

Nothing of the platform is changed for it: the example's component (``examples/tictactoe``,
put on the path by ``kits.example``, not installed) runs in ``parlor.kit.server.running``
as any game service does. Two players play it over gRPC while a third watches; then it is
listed, replayed and exported.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kits.example import tictactoe_on_path

from parlor.common.v1 import common_pb2
from parlor.kit import client
from parlor.kit.auth import AuthSettings, issue_token
from parlor.kit.server import ServerSettings, running

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with tictactoe_on_path(tmp_path_factory.mktemp("tictactoe-generated")):
        yield importlib.import_module("parlor.examples.tictactoe.game")


async def test_the_example_game_is_played_watched_listed_replayed_and_exported(
    example: Any, migrated: None
) -> None:
    from parlor.tictactoe.v1 import tictactoe_pb2 as pb
    from parlor.tictactoe.v1 import tictactoe_pb2_grpc as pb_grpc

    keys = AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=2)
    game_id = uuid.uuid4().hex
    async with running(settings, [example.SERVING.component], keys) as server:
        target = f"127.0.0.1:{server.port}"

        def channel(
            player: str, roles: tuple[str, ...] = (), audience: tuple[str, ...] = ()
        ) -> Any:
            token = issue_token(keys, player, player.title(), roles, audience=audience)
            return client.channel(target, token)

        async with (
            channel("service:tests", ("service",), (server.components[0].name,)) as s_ch,
            channel("ada") as a_ch,
            channel("bob") as b_ch,
            channel("carol") as c_ch,
        ):
            host, ada, bob, carol = (
                pb_grpc.TicTacToeServiceStub(ch) for ch in (s_ch, a_ch, b_ch, c_ch)
            )
            seats = [common_pb2.Seat(player_id=p, display_name=p.title()) for p in ("ada", "bob")]
            created = await host.CreateGame(pb.CreateGameRequest(game_id=game_id, seats=seats))
            assert list(created.game.seats_to_move) == [0]

            async def watch() -> list[Any]:
                return [
                    seen async for seen in carol.WatchGame(pb.WatchGameRequest(game_id=game_id))
                ]

            watching = asyncio.create_task(watch())
            last = None
            for i, square in enumerate(["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"]):
                stub = ada if i % 2 == 0 else bob
                last = await stub.PlayMove(
                    pb.PlayMoveRequest(game_id=game_id, move=square, command_id=f"m{i}")
                )
            assert last is not None
            assert last.game.end_reason == "DRAW"
            assert list(last.game.winners) == []
            watched = await asyncio.wait_for(watching, 10)
            assert watched[-1].event.WhichOneof("body") == "game_finished"
            assert watched[-1].game == last.game

            # everyone's listing: carol finds ada by id only where ada chose to be found
            listed = await carol.ListGames(pb.ListGamesRequest())
            (summary,) = [g for g in listed.games if g.game_id == game_id]
            assert summary.finish_reason == "DRAW"
            assert summary.version == last.game.version

            replayed = [r async for r in carol.ReplayGame(pb.ReplayGameRequest(game_id=game_id))]
            assert len(replayed) == last.game.version
            assert replayed[-1].game == last.game
            exported = await carol.ExportGame(pb.ExportGameRequest(game_id=game_id))
            assert exported.text.splitlines()[-1] == "b2 a1 c1 a3 a2 c2 b1 b3 c3"
            assert exported.text.startswith("[Seat0 ")  # the players, as every game names them
