"""Why each seat left, over gRPC on the real platform (PostgreSQL, NATS, scoring).

Issue 38 items 3 and 4: a Connect 4x4 seat that ran out of time was told it had resigned
(one flag held both), and the scoresheet said ``timed_out = false`` for every seat (scoring
kept no column for it). An aborted game got a scoresheet though the docs say scoring
neither rates nor records it.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import NO_STREAM, Metadata, NewEvent, PostgresEventStore
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.matchrecords.consent import CONSENT
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc
from parlor.services.scoring.sheet import GAME_FINISHED, SEATS_TAKEN
from parlor.takefour.v1 import takefour_pb2 as tf
from parlor.takefour.v1 import takefour_pb2_grpc as tf_grpc
from parlor.upwords.v1 import upwords_pb2 as uw
from parlor.upwords.v1 import upwords_pb2_grpc as uw_grpc

pytestmark = pytest.mark.integration

SECOND = common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=1)
TWO_SECONDS = common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=2)


async def scoresheet(
    scoring: sc_grpc.ScoringServiceStub, game_type: str, game_id: str, seconds: float = 30.0
) -> sc.Scoresheet:
    """The game's scoresheet, once scoring has consumed its GameFinished."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            got = await scoring.GetScoresheet(
                sc.GetScoresheetRequest(game_type=game_type, game_id=game_id)
            )
            return got.scoresheet
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
        assert asyncio.get_running_loop().time() < deadline, f"{game_type} {game_id} not scored"
        await asyncio.sleep(0.1)


async def refused(call: Awaitable[Any]) -> tuple[grpc.StatusCode, str | None, str]:
    code, reason, details, _ = await refusal(call)
    return code, reason, details


async def refusal(
    call: Awaitable[Any],
) -> tuple[grpc.StatusCode, str | None, str, dict[str, str]]:
    """The refusal's code, reason, message and ErrorInfo metadata."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    error = caught.value
    info: dict[str, str] = {}
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            unpacked = error_details_pb2.ErrorInfo()
            detail.Unpack(unpacked)
            info = dict(unpacked.metadata)
    return error.code(), reason_of(error), error.details() or "", info


async def test_a_timed_out_connect4x4_seat_is_told_it_ran_out_and_the_scoresheet_says_so(
    start_platform, monkeypatch
) -> None:
    """Three players at 2 s a move: Bob runs out, his next move and his resignation are
    refused SEAT_TIMED_OUT (not PLAYER_RESIGNED); Ann resigns; Cy wins. The scoresheet
    marks Bob timed out and says why each seat left; the game's view says it too."""
    monkeypatch.setenv("PARLOR_CLOCK_SWEEP_SECONDS", "0.3")
    tag = uuid.uuid4().hex[:6]
    ann, bob, cy = (f"{name}-{tag}" for name in ("ann", "bob", "cy"))
    async with start_platform("scoring", "connect4x4") as platform:
        # As matchmaking seats people who agreed to play: a game scoring rates and records.
        matchmaking = client.channel(
            platform.target, platform.token("service:matchmaking", roles=("service",))
        )
        chans = {p: platform.channel(p) for p in (ann, bob, cy)}
        try:
            games = {p: c4_grpc.Connect4x4ServiceStub(c) for p, c in chans.items()}
            created = await c4_grpc.Connect4x4ServiceStub(matchmaking).CreateGame(
                c4.CreateGameRequest(
                    seats=[common_pb2.Seat(player_id=p) for p in (ann, bob, cy)],
                    config=c4.Config(players=3),
                    time_control=TWO_SECONDS,
                )
            )
            game_id = created.game.game_id
            await games[ann].PlayMove(c4.PlayMoveRequest(game_id=game_id, move="af"))
            # Bob lets his 2 s pass; the sweeper (or his own late move) times him out.
            await asyncio.sleep(2.4)
            late = await refused(
                games[bob].PlayMove(c4.PlayMoveRequest(game_id=game_id, move="bf"))
            )
            assert late[:2] in (
                (grpc.StatusCode.FAILED_PRECONDITION, "TIMED_OUT"),  # his late move times out
                (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TIMED_OUT"),  # the sweeper did
            ), late
            for attempt in (
                games[bob].PlayMove(c4.PlayMoveRequest(game_id=game_id, move="bf")),
                games[bob].Resign(c4.ResignRequest(game_id=game_id)),
            ):
                code, reason, details, info = await refusal(attempt)
                assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TIMED_OUT")
                assert info.get("departure") == "TIMED_OUT"
                assert "ran out of time" in details
                assert "resign" not in details
            now = (await games[cy].GetGame(c4.GetGameRequest(game_id=game_id))).game
            assert list(now.timed_out) == [False, True, False]
            assert list(now.resigned) == [False, False, False]
            assert list(now.departures) == ["", "TIMED_OUT", ""]
            await games[cy].PlayMove(c4.PlayMoveRequest(game_id=game_id, move="cf"))
            await games[ann].Resign(c4.ResignRequest(game_id=game_id))
            over = (await games[cy].GetGame(c4.GetGameRequest(game_id=game_id))).game
            assert over.status == c4.STATUS_WON
            assert list(over.winners) == [2]
            assert list(over.resigned) == [True, False, False]
            assert list(over.departures) == ["RESIGNED", "TIMED_OUT", ""]

            scoring = sc_grpc.ScoringServiceStub(chans[ann])
            sheet = await scoresheet(scoring, "connect4x4", game_id)
            assert [(r.seat.player_id, r.rank) for r in sheet.results] == [
                (ann, 2),
                (bob, 2),
                (cy, 1),
            ]
            assert [r.timed_out for r in sheet.results] == [False, True, False]
            assert [r.departure for r in sheet.results] == ["RESIGNED", "TIMED_OUT", ""]
        finally:
            await matchmaking.close()
            for chan in chans.values():
                await chan.close()


CreateCall = Callable[[Any, list[common_pb2.Seat]], Awaitable[str]]


async def _create_upwords(channel: Any, seats: list[common_pb2.Seat]) -> str:
    created = await uw_grpc.UpwordsServiceStub(channel).CreateGame(
        uw.CreateGameRequest(seats=seats, time_control=SECOND)
    )
    return str(created.game.game_id)


async def _create_takefour(channel: Any, seats: list[common_pb2.Seat]) -> str:
    created = await tf_grpc.TakeFourServiceStub(channel).CreateGame(
        tf.CreateGameRequest(seats=seats, config=tf.Config(), time_control=SECOND)
    )
    return str(created.game.game_id)


async def _create_connect4x4(channel: Any, seats: list[common_pb2.Seat]) -> str:
    created = await c4_grpc.Connect4x4ServiceStub(channel).CreateGame(
        c4.CreateGameRequest(seats=seats, time_control=SECOND)
    )
    return str(created.game.game_id)


@pytest.mark.parametrize(
    ("game_type", "words", "create", "why"),
    [
        ("connect4x4", False, _create_connect4x4, "TIMED_OUT"),
        ("upwords", True, _create_upwords, "TIMED_OUT"),
        # Take Four has no turns: idle past three limits, a seat forfeits on time.
        ("takefour", True, _create_takefour, "FORFEITED"),
    ],
)
async def test_every_game_s_scoresheet_marks_the_seat_that_ran_out_of_time(
    start_platform, monkeypatch, game_type: str, words: bool, create: Any, why: str
) -> None:
    """Two people at 1 s a move who never act: a seat runs out, the other wins; the
    scoresheet's SeatResult says timed_out and why it left, as GameFinished does."""
    monkeypatch.setenv("PARLOR_CLOCK_SWEEP_SECONDS", "0.3")
    tag = uuid.uuid4().hex[:6]
    players = [f"ann-{tag}", f"bob-{tag}"]
    async with contextlib.AsyncExitStack() as stack:
        if words:  # the dictionary first, so its port can go into the word game's settings
            dictionary = await stack.enter_async_context(start_platform("dictionary"))
            monkeypatch.setenv("PARLOR_DICTIONARY_TARGET", dictionary.target)
        platform = await stack.enter_async_context(start_platform("scoring", game_type))
        matchmaking = client.channel(
            platform.target, platform.token("service:matchmaking", roles=("service",))
        )
        chan = platform.channel(players[0])
        try:
            game_id = await create(matchmaking, [common_pb2.Seat(player_id=p) for p in players])
            sheet = await scoresheet(sc_grpc.ScoringServiceStub(chan), game_type, game_id)
            out = [r for r in sheet.results if r.timed_out]
            assert len(out) == 1, sheet
            assert out[0].departure == why
            assert out[0].rank == 2
            (winner,) = [r for r in sheet.results if r.rank == 1]
            assert (winner.timed_out, winner.departure) == (False, "")
        finally:
            await matchmaking.close()
            await chan.close()


async def test_an_aborted_game_is_neither_rated_nor_recorded(
    start_platform, database_url: str
) -> None:
    """A matched game aborted (a seat never started) has no scoresheet and changes no record;
    a game finished after it in the same store is scored, so scoring did read past it."""
    tag = uuid.uuid4().hex[:6]
    ann, bob = f"ann-{tag}", f"bob-{tag}"
    agreed = Metadata(actor="service:matchmaking", extra={CONSENT: "service"})

    async def finished(reason: str, ranks: tuple[int, int], departure: str) -> str:
        game_id = uuid.uuid4().hex[:12]
        taken = common_pb2.SeatsTaken(
            seats=[common_pb2.Seat(index=i, player_id=p) for i, p in enumerate((ann, bob))],
            matched=True,
        )
        result = common_pb2.GameFinished(
            game_type="connect4x4",
            game_id=game_id,
            reason=reason,
            results=[
                common_pb2.SeatResult(seat=common_pb2.Seat(index=i), rank=r, departure=departure)
                for i, r in enumerate(ranks)
            ],
        )
        async with PostgresEventStore(database_url) as store:
            await store.append(
                f"connect4x4-{game_id}",
                [
                    NewEvent(SEATS_TAKEN, taken.SerializeToString(), metadata=agreed),
                    NewEvent(GAME_FINISHED, result.SerializeToString()),
                ],
                NO_STREAM,
            )
        return game_id

    async with start_platform("scoring", "connect4x4") as platform:
        chan = client.channel(platform.target, platform.token(ann))
        try:
            scoring = sc_grpc.ScoringServiceStub(chan)
            aborted = await finished("ABORTED", (1, 1), "ABORTED")
            played = await finished("RESIGNATION", (1, 2), "")
            sheet = await scoresheet(scoring, "connect4x4", played)
            assert sheet.reason == "RESIGNATION"
            code, reason, _ = await refused(
                scoring.GetScoresheet(
                    sc.GetScoresheetRequest(game_type="connect4x4", game_id=aborted)
                )
            )
            assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "SCORESHEET_NOT_FOUND")
            rating = (
                await scoring.GetRating(sc.GetRatingRequest(game_type="connect4x4", player_id=ann))
            ).rating
            assert (rating.games, rating.wins, rating.draws) == (1, 1, 0)
        finally:
            await chan.close()
