"""ListGames and ReplayGame for Upwords over gRPC, on real PostgreSQL, NATS and the dictionary.

A finished game is played back exactly as GetHistory shows it after the end (every rack
and draw), each step's game is GetGame at that version and the last is GetGame now; a
game in progress is not replayed, and neither ListGames nor a refused ReplayGame shows an
opponent or a spectator anyone's rack; listing works by player, finished and by pages.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections import Counter
from typing import Any

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.kit.status import reason_of
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import UpwordsBot
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

SUMMARY_FIELDS = {"game_id", "seats", "created_at", "finished_at", "finish_reason", "version"}
SUMMARY_FIELDS |= {"private"}  # whether it is listed to its seats only
SUMMARY_FIELDS |= {"to_move", "deadline"}  # whose turn, and when it runs out (my_turn_first)


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


def board_of(game: pb.Game) -> uw.Board:
    return uw.Board(tuple(tuple(s.tiles) for s in game.board))


async def finished_bot_game(
    stub: pb_grpc.UpwordsServiceStub, game_id: str, bot: UpwordsBot, turns: int = 6
) -> pb.Game:
    """Ada against bot:best: her best plays, one exchange, one pass, then she resigns."""
    reply: Any = await stub.CreateGame(
        pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bot:best"))
    )
    for turn in range(turns):
        game = reply.game
        assert game.to_move == 0, "the bot answers within the same call"
        play = bot.best_play(board_of(game), tuple(game.rack))
        if turn == 2 and game.bag_count:
            reply = await stub.Exchange(pb.ExchangeRequest(game_id=game_id, tile=game.rack[0]))
        elif turn == 4 or play is None:
            reply = await stub.Pass(pb.PassRequest(game_id=game_id))
        else:
            placements = [pb.Placement(row=p.row, col=p.col, tile=p.tile) for p in play.placements]
            reply = await stub.Play(pb.PlayRequest(game_id=game_id, placements=placements))
        if reply.game.status == pb.STATUS_ENDED:
            return reply.game  # type: ignore[no-any-return]
    reply = await stub.Resign(pb.ResignRequest(game_id=game_id))
    assert reply.game.status == pb.STATUS_ENDED
    return reply.game  # type: ignore[no-any-return]


async def replayed(stub: pb_grpc.UpwordsServiceStub, **request: Any) -> list[Any]:
    return [item async for item in stub.ReplayGame(pb.ReplayGameRequest(**request))]


async def test_a_finished_game_replays_as_its_history_after_the_end(
    upwords: Any, helper_bot: UpwordsBot
) -> None:
    game_id = uuid.uuid4().hex
    async with upwords.channel("ada") as a, upwords.channel("carol") as c:
        ada, carol = pb_grpc.UpwordsServiceStub(a), pb_grpc.UpwordsServiceStub(c)
        final = await finished_bot_game(ada, game_id, helper_bot)
        stored = (await ada.GetHistory(pb.GetHistoryRequest(game_id=game_id))).events
        kinds = Counter(e.WhichOneof("body") for e in stored)
        assert kinds["word_played"] >= 4
        # Ada's one exchange (the bot exchanges too when its rack makes no word: a deal's luck)
        exchanges = [e.tile_exchanged.seat for e in stored if e.HasField("tile_exchanged")]
        assert exchanges.count(0) == 1
        assert kinds["passed"] >= 1

        for who, stub in (("ada", ada), ("carol", carol)):
            history = list((await stub.GetHistory(pb.GetHistoryRequest(game_id=game_id))).events)
            started = time.perf_counter()
            items = await replayed(stub, game_id=game_id, pace_ms=10)
            took = time.perf_counter() - started
            assert [i.event.info.version for i in items] == list(range(1, final.version + 1))
            assert [i.event for i in items] == history, who  # notation and secrets included
            assert took >= 0.01 * (len(items) - 1)  # paced (a lower bound only)
            now = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
            assert items[-1].game == now
            assert items[-1].event.WhichOneof("body") == "game_finished"
            for item in items:
                version = item.event.info.version
                past = await stub.GetGame(pb.GetGameRequest(game_id=game_id, version=version))
                assert item.game == past.game, (who, version)

            # Everything is shown once the game is over, to a player and a spectator alike.
            created = items[1].event.game_created
            assert [r.seat for r in created.racks] == [0, 1]
            assert all(len(r.tiles) == 7 for r in created.racks)
            assert len(created.bag) == 100 - 14
            bot_draws = [
                i.event.tiles_drawn
                for i in items
                if i.event.HasField("tiles_drawn") and i.event.tiles_drawn.seat == 1
            ]
            assert bot_draws
            assert all(len(d.drawn) == d.count for d in bot_draws)
            exchanged = next(i.event for i in items if i.event.HasField("tile_exchanged"))
            assert exchanged.tile_exchanged.returned
            assert exchanged.tile_exchanged.drawn
            assert exchanged.notation == f"-{exchanged.tile_exchanged.returned.upper()}"
            for item in items[2:]:
                assert [r.seat for r in item.game.racks] == [0, 1]

        # From a later version: the same events, notation too (the board before a play is
        # not folded from the start for it).
        history = list((await carol.GetHistory(pb.GetHistoryRequest(game_id=game_id))).events)
        plays = [e.info.version for e in history if e.HasField("word_played")]
        start = plays[2]
        resumed = await replayed(carol, game_id=game_id, from_version=start)
        assert [i.event for i in resumed] == history[start - 1 :]
        assert resumed[0].event.notation == history[start - 1].notation != ""


async def test_a_game_in_progress_is_not_replayed_and_shows_no_rack(upwords: Any) -> None:
    game_id = uuid.uuid4().hex
    async with (
        upwords.channel("ada") as a,
        upwords.channel("bob") as b,
        upwords.channel("carol") as c,
    ):
        ada, bob, carol = (pb_grpc.UpwordsServiceStub(ch) for ch in (a, b, c))
        async with upwords.service_channel() as s_ch:  # ada and bob agreed elsewhere
            await pb_grpc.UpwordsServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob"))
            )
        rack = list((await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game.rack)
        assert len(rack) == 7
        spellings = {"".join(rack), " ".join(rack), ", ".join(rack), str(rack), repr(tuple(rack))}

        for who, stub in (("bob", bob), ("carol", carol), ("ada", ada)):
            got: list[Any] = []
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async for item in stub.ReplayGame(pb.ReplayGameRequest(game_id=game_id)):
                    got.append(item)
            assert got == [], who
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(refused.value) == "GAME_NOT_FINISHED"
            said = f"{refused.value.details()} {refused.value.trailing_metadata()}"
            assert not any(s in said for s in spellings), who

            # ada finds her own games by her id; the others find the public game in everyone's
            mine = "ada" if who == "ada" else ""
            listed = await stub.ListGames(pb.ListGamesRequest(player_id=mine, page_size=500))
            (summary,) = [g for g in listed.games if g.game_id == game_id]
            assert {f.name for f in summary.DESCRIPTOR.fields} == SUMMARY_FIELDS
            assert {f.name for f, _ in summary.ListFields()} <= SUMMARY_FIELDS - {"finished_at"}
            assert [s.player_id for s in summary.seats] == ["ada", "bob"]

        with pytest.raises(grpc.aio.AioRpcError) as slow:
            await replayed(carol, game_id=game_id, pace_ms=10_001)
        assert (slow.value.code(), reason_of(slow.value)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_PACE",
        )
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await replayed(carol, game_id="no-such-upwords-game")
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND

        # Once it has ended, the spectator's replay shows ada's first rack.
        await bob.Resign(pb.ResignRequest(game_id=game_id))
        items = await replayed(carol, game_id=game_id)
        first = {r.seat: list(r.tiles) for r in items[1].event.game_created.racks}
        assert first[0] == rack
        assert items[-2].event.game_ended.reason == "RESIGNED"


async def test_list_games_by_player_finished_and_pages(upwords: Any) -> None:
    player = f"dora{uuid.uuid4().hex[:6]}"
    other = f"eve{uuid.uuid4().hex[:6]}"
    before = dt.datetime.now(dt.UTC)
    async with upwords.channel(player) as d, upwords.channel(other) as e:
        dora, eve = pb_grpc.UpwordsServiceStub(d), pb_grpc.UpwordsServiceStub(e)
        ids = [uuid.uuid4().hex for _ in range(3)]
        for game_id in ids:
            await dora.CreateGame(
                pb.CreateGameRequest(game_id=game_id, seats=seats(player, "bot:random"))
            )
        finished = uuid.uuid4().hex
        async with upwords.service_channel() as s_ch:  # they agreed elsewhere
            await pb_grpc.UpwordsServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(game_id=finished, seats=seats(other, player))
            )
        await eve.Resign(pb.ResignRequest(game_id=finished))

        mine = await dora.ListGames(pb.ListGamesRequest(player_id=player))
        assert [g.game_id for g in mine.games] == [finished, *reversed(ids)]
        assert mine.games[0].finish_reason == "RESIGNED"
        assert mine.games[0].HasField("finished_at")
        assert not mine.games[1].HasField("finished_at")
        assert [s.player_id for s in mine.games[1].seats] == [player, "bot:random"]
        assert not mine.next_page_token

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

        first = await dora.ListGames(pb.ListGamesRequest(player_id=player, page_size=2))
        assert len(first.games) == 2
        assert first.next_page_token
        rest = await dora.ListGames(
            pb.ListGamesRequest(player_id=player, page_size=2, page_token=first.next_page_token)
        )
        assert [g.game_id for g in [*first.games, *rest.games]] == [g.game_id for g in mine.games]

        window = pb.ListGamesRequest(player_id=player)
        window.created_after.FromDatetime(before)
        assert len((await dora.ListGames(window)).games) == 4
        earlier = pb.ListGamesRequest(player_id=player)
        earlier.created_before.FromDatetime(before)
        assert list((await dora.ListGames(earlier)).games) == []

        everyone = await dora.ListGames(pb.ListGamesRequest(page_size=500))
        assert {finished, *ids} <= {g.game_id for g in everyone.games}
        for bad, reason in (
            (pb.ListGamesRequest(page_size=501), "INVALID_PAGE_SIZE"),
            (pb.ListGamesRequest(page_token="not a token"), "INVALID_PAGE_TOKEN"),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await dora.ListGames(bad)
            assert reason_of(refused.value) == reason
