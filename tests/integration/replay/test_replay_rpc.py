"""ListGames and ReplayGame over gRPC: listing by player and time, paging, pace bounds,
finished or in-progress games only (not both at once), and every event played back with the
game after it."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
import uuid

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.kit.status import reason_of

pytestmark = pytest.mark.integration

WIN = ["af", "ab", "ab", "af", "af", "ab", "ab"]  # seat 0 weaves a vertical line in column a


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


async def create(platform, game_id: str, *players: str) -> None:  # type: ignore[no-untyped-def]
    """Players who agreed to play elsewhere, seated by a platform service."""
    async with platform.service_channel() as ch:
        await pb_grpc.Connect4x4ServiceStub(ch).CreateGame(
            pb.CreateGameRequest(game_id=game_id, seats=seats(*players))
        )


async def finished_game(platform, ada, bob, game_id: str) -> pb.Game:  # type: ignore[no-untyped-def]
    await create(platform, game_id, "ada", "bob")
    last = None
    for i, move in enumerate(WIN):
        stub = ada if i % 2 == 0 else bob
        last = await stub.PlayMove(pb.PlayMoveRequest(game_id=game_id, move=move))
    assert last is not None
    assert last.game.status == pb.STATUS_WON
    return last.game


async def test_replay_plays_a_finished_game_back_event_by_event(start_platform) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform:
        async with platform.channel("ada") as a, platform.channel("bob") as b:
            ada, bob = pb_grpc.Connect4x4ServiceStub(a), pb_grpc.Connect4x4ServiceStub(b)
            final = await finished_game(platform, ada, bob, game_id)
        async with platform.channel("carol") as c:
            carol = pb_grpc.Connect4x4ServiceStub(c)
            started = time.perf_counter()
            items = [
                item
                async for item in carol.ReplayGame(
                    pb.ReplayGameRequest(game_id=game_id, pace_ms=20)
                )
            ]
            took = time.perf_counter() - started
            assert [i.event.info.version for i in items] == list(range(1, final.version + 1))
            assert [i.game.version for i in items] == list(range(1, final.version + 1))
            assert [i.event.notation for i in items if i.event.notation] == WIN
            assert items[-1].game.front == final.front
            assert items[-1].event.WhichOneof("body") == "game_finished"
            # paced: at least (n - 1) gaps of 20 ms (a lower bound, never an upper one)
            assert took >= 0.02 * (len(items) - 1)
            for step, item in zip(items[2:], range(3, final.version + 1), strict=False):
                past = await carol.GetGame(pb.GetGameRequest(game_id=game_id, version=item))
                assert past.game.front == step.game.front
                assert past.game.back == step.game.back

            resumed = [
                i.event.info.version
                async for i in carol.ReplayGame(
                    pb.ReplayGameRequest(game_id=game_id, from_version=5)
                )
            ]
            assert resumed == list(range(5, final.version + 1))


async def test_replay_refuses_a_game_in_progress_and_a_pace_out_of_bounds(start_platform) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform:
        async with platform.channel("ada") as a:
            ada = pb_grpc.Connect4x4ServiceStub(a)
            await create(platform, game_id, "ada", "bob")
            with pytest.raises(grpc.aio.AioRpcError) as running:
                async for _ in ada.ReplayGame(pb.ReplayGameRequest(game_id=game_id)):
                    pass
            assert running.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(running.value) == "GAME_NOT_FINISHED"
            with pytest.raises(grpc.aio.AioRpcError) as slow:
                async for _ in ada.ReplayGame(
                    pb.ReplayGameRequest(game_id=game_id, pace_ms=10_001)
                ):
                    pass
            assert slow.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert reason_of(slow.value) == "INVALID_PACE"
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                async for _ in ada.ReplayGame(pb.ReplayGameRequest(game_id="nope")):
                    pass
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND


async def test_list_games_by_player_time_and_pages(start_platform) -> None:
    player = f"dora{uuid.uuid4().hex[:6]}"
    other = f"eve{uuid.uuid4().hex[:6]}"
    before = dt.datetime.now(dt.UTC)
    async with start_platform("connect4x4") as platform:
        async with platform.channel(player) as d, platform.channel(other) as e:
            dora, eve = pb_grpc.Connect4x4ServiceStub(d), pb_grpc.Connect4x4ServiceStub(e)
            ids = [uuid.uuid4().hex for _ in range(3)]
            for game_id in ids:
                await dora.CreateGame(
                    pb.CreateGameRequest(game_id=game_id, seats=seats(player, "bot:random"))
                )
            finished = uuid.uuid4().hex
            await create(platform, finished, other, player)
            await eve.Resign(pb.ResignRequest(game_id=finished))
            mine = await dora.ListGames(pb.ListGamesRequest(player_id=player))
            assert [g.game_id for g in mine.games] == [finished, *reversed(ids)]
            assert mine.games[0].finish_reason == "RESIGNATION"
            assert mine.games[0].HasField("finished_at")
            assert not mine.games[1].HasField("finished_at")
            assert [s.player_id for s in mine.games[1].seats] == [player, "bot:random"]

            done = await dora.ListGames(pb.ListGamesRequest(player_id=player, finished_only=True))
            assert [g.game_id for g in done.games] == [finished]
            going = pb.ListGamesRequest(player_id=player, in_progress_only=True)
            assert [g.game_id for g in (await dora.ListGames(going)).games] == [*reversed(ids)]
            with pytest.raises(grpc.aio.AioRpcError) as both:
                await dora.ListGames(
                    pb.ListGamesRequest(player_id=player, finished_only=True, in_progress_only=True)
                )
            assert both.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert reason_of(both.value) == "CONFLICTING_FILTERS"

            first = await dora.ListGames(pb.ListGamesRequest(player_id=player, page_size=2))
            assert len(first.games) == 2
            assert first.next_page_token
            rest = await dora.ListGames(
                pb.ListGamesRequest(player_id=player, page_size=2, page_token=first.next_page_token)
            )
            assert [g.game_id for g in [*first.games, *rest.games]] == [
                g.game_id for g in mine.games
            ]

            window = pb.ListGamesRequest(player_id=player)
            window.created_after.FromDatetime(before)
            assert len((await dora.ListGames(window)).games) == 4
            earlier = pb.ListGamesRequest(player_id=player)
            earlier.created_before.FromDatetime(before)
            assert list((await dora.ListGames(earlier)).games) == []

            with pytest.raises(grpc.aio.AioRpcError) as big:
                await dora.ListGames(pb.ListGamesRequest(page_size=501))
            assert reason_of(big.value) == "INVALID_PAGE_SIZE"


async def test_a_version_past_the_end_of_the_game_is_refused(start_platform) -> None:
    """WatchGame after, or ReplayGame or GetHistory from, a version the game does not have
    is the client's claim, checked against the store: NOT_FOUND NO_SUCH_VERSION, as GetGame
    answers. A watch after version 10^15 of a game in play waited in silence until the idle
    limit told the client to watch again "from the last version you saw"; such a replay or
    history sent nothing, OK. From the version after the last (a client that saw every
    event) is still no error."""
    finished, live = uuid.uuid4().hex, uuid.uuid4().hex
    async with start_platform("connect4x4") as platform:
        async with platform.channel("ada") as a, platform.channel("bob") as b:
            ada, bob = pb_grpc.Connect4x4ServiceStub(a), pb_grpc.Connect4x4ServiceStub(b)
            final = await finished_game(platform, ada, bob, finished)
            await create(platform, live, "ada", "bob")
            now = (await ada.GetGame(pb.GetGameRequest(game_id=live))).game.version
            for call in (
                lambda: ada.WatchGame(pb.WatchGameRequest(game_id=live, after_version=now + 1)),
                lambda: ada.WatchGame(
                    pb.WatchGameRequest(game_id=finished, after_version=final.version + 1)
                ),
                lambda: ada.ReplayGame(
                    pb.ReplayGameRequest(game_id=finished, from_version=final.version + 2)
                ),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as past:
                    async with asyncio.timeout(10):
                        async for _ in call():
                            pass
                assert past.value.code() == grpc.StatusCode.NOT_FOUND
                assert reason_of(past.value) == "NO_SUCH_VERSION"
            caught_up = ada.ReplayGame(
                pb.ReplayGameRequest(game_id=finished, from_version=final.version + 1)
            )
            assert [item async for item in caught_up] == []
            with pytest.raises(grpc.aio.AioRpcError) as history:
                await ada.GetHistory(pb.GetHistoryRequest(game_id=live, from_version=now + 2))
            assert history.value.code() == grpc.StatusCode.NOT_FOUND
            assert reason_of(history.value) == "NO_SUCH_VERSION"
            newer = await ada.GetHistory(pb.GetHistoryRequest(game_id=live, from_version=now + 1))
            assert list(newer.events) == []
