"""Clocks in every view: GetGame, WatchGame and ReplayGame show the clocks the events fold to."""

from __future__ import annotations

import asyncio
from datetime import UTC, timedelta
from typing import Any

from kits.clock import T0, FakeNow

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.deadlines import MemoryDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.wire.service import GameService
from parlor.kit import auth
from parlor.services.connect4x4.game import GAME, Codec
from parlor.services.connect4x4.game import SERVING as C4_SERVING


def serve() -> tuple[GameService[Any, Any], FakeNow, MemoryDeadlines]:
    now, index = FakeNow(), MemoryDeadlines()
    host: Any = GameHost(
        "connect4x4", GAME.decider, Codec(), InMemoryEventStore(), now=now, deadlines=index
    )
    return C4_SERVING.servicer(host), now, index


def as_player(player_id: str, roles: tuple[str, ...] = ()) -> None:
    auth.bind(auth.Identity(player_id, roles=roles))


def per_move(seconds: int) -> common_pb2.TimeControl:
    return common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=seconds)


async def create(servicer: GameService[Any, Any], control: common_pb2.TimeControl | None) -> str:
    as_player("service:tests", ("service",))
    request = pb.CreateGameRequest(
        game_id="g", seats=[common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")]
    )
    if control is not None:
        request.time_control.CopyFrom(control)
    await servicer.CreateGame(request, None)
    return "g"


def test_create_game_uses_the_time_control_asked_for_else_the_game_types_default() -> None:
    async def go() -> None:
        servicer, _, _ = serve()
        await create(servicer, per_move(45))
        as_player("ada")
        game = (await servicer.GetGame(pb.GetGameRequest(game_id="g"), None)).game
        assert game.clocks.time_control.move_seconds == 45
        servicer, _, _ = serve()
        await create(servicer, None)
        game = (await servicer.GetGame(pb.GetGameRequest(game_id="g"), None)).game
        assert game.clocks.time_control == GAME.default_time_control.to_proto()

    asyncio.run(go())


def test_a_game_against_a_bot_has_no_clock_unless_asked() -> None:
    async def go() -> None:
        servicer, _, _ = serve()
        as_player("ada")
        request = pb.CreateGameRequest(
            game_id="g",
            seats=[common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bot:random")],
        )
        created = await servicer.CreateGame(request, None)
        assert not created.game.HasField("clocks")

    asyncio.run(go())


def test_get_game_shows_the_time_left_now_and_the_deadline() -> None:
    async def go() -> None:
        servicer, now, _ = serve()
        await create(servicer, per_move(30))
        now.at = T0 + timedelta(seconds=10)
        as_player("ada")
        game = (await servicer.GetGame(pb.GetGameRequest(game_id="g"), None)).game
        ada, bob = game.clocks.seats
        assert ada.running
        assert not bob.running
        assert ada.remaining.ToTimedelta() == timedelta(seconds=20)
        assert ada.deadline.ToDatetime(UTC) == T0 + timedelta(seconds=30)
        assert game.clocks.as_of.ToDatetime(UTC) == now.at

    asyncio.run(go())


def test_watch_and_replay_show_the_clocks_of_each_version_as_the_live_game_did() -> None:
    async def go() -> None:
        servicer, now, index = serve()
        await create(servicer, per_move(30))
        as_player("ada")
        now.at = T0 + timedelta(seconds=5)
        played = await servicer.PlayMove(pb.PlayMoveRequest(game_id="g", move="df"), None)
        now.at = T0 + timedelta(seconds=40)
        await Sweeper(servicer.host, index).sweep()  # bob ran out
        watched = []
        async for item in servicer.WatchGame(pb.WatchGameRequest(game_id="g"), None):
            watched.append(item)
        replayed = [r async for r in servicer.ReplayGame(pb.ReplayGameRequest(game_id="g"), None)]
        assert [w.game.clocks for w in watched] == [r.game.clocks for r in replayed]
        after_move = next(w for w in watched if w.game.version == played.game.version)
        assert after_move.game.clocks == played.game.clocks
        bob = watched[-1].game.clocks.seats[1]
        assert bob.timed_out
        assert not bob.running
        kinds = [w.event.WhichOneof("body") for w in watched]
        assert "player_timed_out" in kinds

    asyncio.run(go())


def test_a_bot_whose_turn_comes_with_a_timeout_moves_at_the_sweep() -> None:
    async def go() -> None:
        servicer, now, index = serve()
        as_player("service:tests", ("service",))
        seats = [common_pb2.Seat(player_id=p) for p in ("ada", "bob", "bot:random")]
        await servicer.CreateGame(
            pb.CreateGameRequest(
                game_id="g",
                seats=seats,
                config=pb.Config(players=3),
                time_control=per_move(30),
            ),
            None,
        )
        as_player("ada")
        await servicer.PlayMove(pb.PlayMoveRequest(game_id="g", move="df"), None)
        now.at = T0 + timedelta(seconds=31)  # bob never moves
        sweeper = Sweeper(servicer.host, index, servicer.pipeline)
        assert await sweeper.sweep() == 1
        game = (await servicer.GetGame(pb.GetGameRequest(game_id="g"), None)).game
        assert list(game.timed_out) == [False, True, False]
        assert game.turn == 0  # the bot moved at once: ada is to move again
        assert game.moves == 2

    asyncio.run(go())
