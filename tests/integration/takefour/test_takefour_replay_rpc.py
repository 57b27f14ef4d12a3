"""Take Four's ListGames and ReplayGame over gRPC, on real PostgreSQL, NATS and the dictionary.

A finished game plays back event for event as its history reads after the end, every hand
and grid shown at every step, the last picture the game itself; a game in progress is
refused (to its players and to spectators alike) before anything is sent; the list pages
by player, time and end, and its summaries carry no tile.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from typing import Any

import grpc
import pytest
from kits.takefour import tile_set

from parlor.common.v1 import common_pb2
from parlor.kit.status import reason_of
from parlor.services.takefour.game import tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

SUMMARY_FIELDS = {"game_id", "seats", "created_at", "finished_at", "finish_reason", "version"}
SUMMARY_FIELDS |= {"private"}  # whether it is listed to its seats only


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


def small(**fields: Any) -> pb.Config:
    """Eight tiles for two players: the start deal empties the bag."""
    return pb.Config(tiles=tiles_pb(tile_set("C1 A1 T1 S1 D1 O1 G1 E1")), **fields)


async def create(platform: Any, stub: Any, game_id: str, *players: str, **config: Any) -> pb.Game:
    """The game as ``stub``'s caller sees it; a platform service seats the players (who
    agreed to play elsewhere: a player may seat only themselves and bots)."""
    async with platform.service_channel() as ch:
        await pb_grpc.TakeFourServiceStub(ch).CreateGame(
            pb.CreateGameRequest(game_id=game_id, seats=seats(*players), config=small(**config))
        )
    game: pb.Game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
    return game


async def place_hand(stub: Any, game_id: str, seat: int) -> None:
    """Lay the caller's whole hand in a row."""
    game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
    for x, tile in enumerate(game.seats[seat].hand):
        await stub.PlaceTile(pb.PlaceTileRequest(game_id=game_id, tile=tile.id, x=x, y=0))


async def finished_game(platform: Any, ada: Any, bob: Any, game_id: str) -> pb.Game:
    """A one-round game of two, both hands laid down, ended by Ada's Done."""
    await create(platform, ada, game_id, "ada", "bob", max_rounds=1)
    await place_hand(ada, game_id, 0)
    await place_hand(bob, game_id, 1)
    done = await ada.CallDone(pb.CallDoneRequest(game_id=game_id))
    assert done.game.phase == pb.PHASE_OVER
    game: pb.Game = done.game
    return game


async def replayed(stub: Any, game_id: str, **fields: Any) -> list[pb.ReplayGameResponse]:
    return [item async for item in stub.ReplayGame(pb.ReplayGameRequest(game_id=game_id, **fields))]


async def test_a_finished_game_plays_back_as_its_history_reads_with_everything_shown(
    takefour: Any,
) -> None:
    game_id = uuid.uuid4().hex
    async with (
        takefour.channel("ada") as a,
        takefour.channel("bob") as b,
        takefour.channel("cy") as c,
    ):
        ada, bob, cy = (pb_grpc.TakeFourServiceStub(ch) for ch in (a, b, c))
        final = await finished_game(takefour, ada, bob, game_id)
        last = final.version
        for stub in (ada, bob, cy):  # each seat, and a spectator
            started = time.perf_counter()
            items = await replayed(stub, game_id, pace_ms=20)
            took = time.perf_counter() - started
            assert [i.event.info.version for i in items] == list(range(1, last + 1))
            assert [i.game.version for i in items] == list(range(1, last + 1))
            assert took >= 0.02 * (len(items) - 1)  # paced (a lower bound only)
            history = (await stub.GetHistory(pb.GetHistoryRequest(game_id=game_id))).events
            assert [i.event for i in items] == list(history)
            now = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
            assert items[-1].game == now
            assert items[-1].event.WhichOneof("body") == "game_finished"
            for item in items[2:]:  # every step shows every hand and grid
                assert all(s.visible for s in item.game.seats)
                past = await stub.GetGame(
                    pb.GetGameRequest(game_id=game_id, version=item.game.version)
                )
                assert past.game == item.game
        dealt = items[3].game  # after the start deal: both hands, nothing placed yet
        assert [len(s.hand) for s in dealt.seats] == [4, 4]
        assert [s.on_grid for s in dealt.seats] == [0, 0]
        kinds = [i.event.WhichOneof("body") for i in items]
        assert kinds[:4] == ["seats_taken", "game_created", "round_started", "tiles_dealt"]
        assert items[2].event.round_started.secret.bag  # the shuffle, revealed
        assert all(
            i.event.tile_placed.HasField("secret") for i in items if i.event.HasField("tile_placed")
        )
        done = next(i.event.done_called for i in items if i.event.HasField("done_called"))
        assert done.HasField("secret")  # the verdicts Done was scored with

        resumed = [i.event.info.version for i in await replayed(cy, game_id, from_version=5)]
        assert resumed == list(range(5, last + 1))


async def test_a_game_in_progress_is_refused_to_players_and_spectators_alike(
    takefour: Any,
) -> None:
    game_id = uuid.uuid4().hex
    async with (
        takefour.channel("ada") as a,
        takefour.channel("bob") as b,
        takefour.channel("cy") as c,
    ):
        ada, bob, cy = (pb_grpc.TakeFourServiceStub(ch) for ch in (a, b, c))
        await create(takefour, ada, game_id, "ada", "bob")
        await place_hand(ada, game_id, 0)
        for stub in (ada, bob, cy):
            received: list[pb.ReplayGameResponse] = []
            with pytest.raises(grpc.aio.AioRpcError) as running:
                async for item in stub.ReplayGame(pb.ReplayGameRequest(game_id=game_id)):
                    received.append(item)
            assert running.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(running.value) == "GAME_NOT_FINISHED"
            assert received == []  # refused before a single event went out
        # The past of a game in progress stays as each viewer may see it.
        for stub, viewer in ((bob, 1), (cy, None)):
            past = (await stub.GetGame(pb.GetGameRequest(game_id=game_id, version=8))).game
            for view in past.seats:
                assert view.visible == (view.seat.index == viewer)
                if view.seat.index != viewer:
                    assert not view.hand
                    assert not view.grid
        with pytest.raises(grpc.aio.AioRpcError) as slow:
            async for _ in ada.ReplayGame(pb.ReplayGameRequest(game_id=game_id, pace_ms=10_001)):
                pass
        assert reason_of(slow.value) == "INVALID_PACE"
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            async for _ in ada.ReplayGame(pb.ReplayGameRequest(game_id="nope")):
                pass
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND


async def test_list_games_by_player_time_end_and_pages_with_no_tile_in_sight(
    takefour: Any,
) -> None:
    player = f"dora{uuid.uuid4().hex[:6]}"
    other = f"eve{uuid.uuid4().hex[:6]}"
    before = dt.datetime.now(dt.UTC)
    async with takefour.channel(player) as d, takefour.channel(other) as e:
        dora, eve = pb_grpc.TakeFourServiceStub(d), pb_grpc.TakeFourServiceStub(e)
        ids = [uuid.uuid4().hex for _ in range(3)]
        for game_id in ids:
            await create(takefour, dora, game_id, player, f"idle{uuid.uuid4().hex[:6]}")
        finished = uuid.uuid4().hex
        await create(takefour, eve, finished, other, player, max_rounds=1)
        await place_hand(eve, finished, 0)
        await eve.CallDone(pb.CallDoneRequest(game_id=finished))

        mine = await dora.ListGames(pb.ListGamesRequest(player_id=player))
        assert [g.game_id for g in mine.games] == [finished, *reversed(ids)]
        assert mine.games[0].finish_reason == "ROUNDS_PLAYED"
        assert mine.games[0].HasField("finished_at")
        assert not mine.games[1].HasField("finished_at")
        assert [s.player_id for s in mine.games[0].seats] == [other, player]
        for summary in mine.games:  # seats, times, the end: never a hand, grid or bag
            assert {f.name for f, _ in summary.ListFields()} <= SUMMARY_FIELDS

        done = await dora.ListGames(pb.ListGamesRequest(player_id=player, finished_only=True))
        assert [g.game_id for g in done.games] == [finished]
        going = pb.ListGamesRequest(player_id=player, in_progress_only=True)
        assert [g.game_id for g in (await dora.ListGames(going)).games] == [*reversed(ids)]
        # Another player's games only where they chose to be found (CreateGame's findable):
        # the player themself finds them all.
        theirs = await dora.ListGames(pb.ListGamesRequest(player_id=other))
        assert [g.game_id for g in theirs.games] == []
        theirs = await eve.ListGames(pb.ListGamesRequest(player_id=other))
        assert [g.game_id for g in theirs.games] == [finished]

        first = await dora.ListGames(pb.ListGamesRequest(player_id=player, page_size=3))
        assert len(first.games) == 3
        assert first.next_page_token
        rest = await dora.ListGames(
            pb.ListGamesRequest(player_id=player, page_size=3, page_token=first.next_page_token)
        )
        assert not rest.next_page_token
        assert [g.game_id for g in [*first.games, *rest.games]] == [g.game_id for g in mine.games]

        window = pb.ListGamesRequest(player_id=player)
        window.created_after.FromDatetime(before)
        assert len((await dora.ListGames(window)).games) == 4
        earlier = pb.ListGamesRequest(player_id=player)
        earlier.created_before.FromDatetime(before)
        assert list((await dora.ListGames(earlier)).games) == []

        with pytest.raises(grpc.aio.AioRpcError) as big:
            await dora.ListGames(pb.ListGamesRequest(page_size=501))
        assert reason_of(big.value) == "INVALID_PAGE_SIZE"
        # a NUL is refused by the kit for every request and field, before the service sees it
        for bad_token, reason in (
            ("not a token", "INVALID_PAGE_TOKEN"),
            (f"{before.isoformat()}|a\x00b", "NUL_CHARACTER"),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as token:
                await dora.ListGames(pb.ListGamesRequest(page_token=bad_token))
            assert token.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert reason_of(token.value) == reason
        # no seat could hold these (nor PostgreSQL text, for the NUL)
        for bad_player, reason in (("a\x00b", "NUL_CHARACTER"), ("x" * 129, "INVALID_PLAYER_ID")):
            with pytest.raises(grpc.aio.AioRpcError) as nobody:
                await dora.ListGames(pb.ListGamesRequest(player_id=bad_player))
            assert nobody.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert reason_of(nobody.value) == reason
