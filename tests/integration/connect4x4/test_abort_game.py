"""Aborting a game that has not started, over gRPC on the real platform (PostgreSQL, NATS,
scoring): a seat that makes no first move within ``PARLOR_ABORT_WINDOW_SECONDS`` (1 s
here) lets the other abort the game; it ends unrated for both (no scoresheet, no rating
change), the other's ``WatchGame`` sees it, and so does his ``WatchPlayer`` (matchmaking's
turn feed). The laggard's own abort is ``ABORT_OWN_FIRST_MOVE``, one before the window
``ABORT_NOT_YET`` (with when), one after both moved ``ABORT_TOO_LATE``; a player past
``PARLOR_ABORTS_PER_DAY`` is refused ``TOO_MANY_ABORTS``.

Games are created as matchmaking seats two people who agreed to play (its service identity
vouches for them), so scoring would rate them.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc

pytestmark = pytest.mark.integration

MINUTE = common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=60)


def players() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"ann-{tag}", f"bob-{tag}"


async def refused(call: Any) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    status = rpc_status.from_call(error.value)
    metadata: dict[str, str] = {}
    if status is not None:
        from google.rpc import error_details_pb2

        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                metadata = dict(info.metadata)
    return error.value.code(), reason_of(error.value), metadata


@contextlib.asynccontextmanager
async def seated(platform: Any, ann: str, bob: str) -> Any:
    """Stubs for ann and bob, a maker of their (rated) games at ``control``, and scoring."""
    service = client.channel(
        platform.target, platform.token("service:matchmaking", roles=("service",))
    )
    chans = {p: platform.channel(p) for p in (ann, bob)}
    try:
        stubs = {p: c4_grpc.Connect4x4ServiceStub(c) for p, c in chans.items()}

        async def game(control: common_pb2.TimeControl = MINUTE) -> str:
            created = await c4_grpc.Connect4x4ServiceStub(service).CreateGame(
                c4.CreateGameRequest(
                    seats=[common_pb2.Seat(player_id=ann), common_pb2.Seat(player_id=bob)],
                    time_control=control,
                )
            )
            return str(created.game.game_id)

        yield stubs, game, sc_grpc.ScoringServiceStub(chans[ann])
    finally:
        for chan in (service, *chans.values()):
            await chan.close()


async def test_a_seat_that_does_not_move_in_the_window_lets_the_other_abort_unrated(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLOR_ABORT_WINDOW_SECONDS", "1")
    ann, bob = players()
    async with start_platform("scoring", "connect4x4", "matchmaking") as platform:
        async with seated(platform, ann, bob) as (games, game, scoring):
            aborted = await game()
            watch = games[bob].WatchGame(c4.WatchGameRequest(game_id=aborted))
            await games[ann].PlayMove(c4.PlayMoveRequest(game_id=aborted, move="df"))
            # bob has not moved: his own abort is refused, he is the one to move
            code, reason, _ = await refused(
                games[bob].AbortGame(c4.AbortGameRequest(game_id=aborted))
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ABORT_OWN_FIRST_MOVE")
            # ann may abort once bob's clock has run the window, not before
            code, reason, metadata = await refused(
                games[ann].AbortGame(c4.AbortGameRequest(game_id=aborted))
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ABORT_NOT_YET")
            assert set(metadata) == {"retry_after_seconds", "abort_window_seconds"}
            assert metadata["abort_window_seconds"] == "1"
            assert 0 < float(metadata["retry_after_seconds"]) <= 1
            await asyncio.sleep(float(metadata["retry_after_seconds"]) + 0.05)
            answer = await games[ann].AbortGame(c4.AbortGameRequest(game_id=aborted))
            (finished,) = [e for e in answer.events if e.HasField("game_finished")]
            assert finished.game_finished.reason == "ABORTED"
            assert list(answer.game.departures) == ["ABORTED", "ABORTED"]
            assert answer.game.aborted
            assert answer.game.status == c4.STATUS_ABORTED
            assert not answer.game.seats_to_move
            assert not answer.game.legal_moves

            async def seen_by_bob() -> Any:
                async for message in watch:
                    if message.event.HasField("game_finished"):
                        return message
                raise AssertionError("bob's watch ended without the abort")

            message = await asyncio.wait_for(seen_by_bob(), 30)
            assert message.event.game_finished.reason == "ABORTED"
            assert list(message.game.departures) == ["ABORTED", "ABORTED"]

            async def told_bob() -> Any:
                async with platform.channel(bob) as chan:
                    watch = ch_grpc.ChallengeServiceStub(chan).WatchPlayer(
                        ch.WatchPlayerRequest(after=0)
                    )
                    async for said in watch:
                        for notice in said.notices:
                            if notice.kind == ch.NOTICE_KIND_GAME_ABORTED:
                                return notice
                raise AssertionError("bob's WatchPlayer ended without the abort")

            notice = await asyncio.wait_for(told_bob(), 30)
            assert (notice.game_type, notice.game_id) == ("connect4x4", aborted)
            code, reason, _ = await refused(
                games[bob].AbortGame(c4.AbortGameRequest(game_id=aborted))
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
            code, reason, _ = await refused(
                games[bob].PlayMove(c4.PlayMoveRequest(game_id=aborted, move="db"))
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")

            # Once both have moved the game has started: too late; it is played (resigned).
            played = await game()
            await games[ann].PlayMove(c4.PlayMoveRequest(game_id=played, move="df"))
            await games[bob].PlayMove(c4.PlayMoveRequest(game_id=played, move="db"))
            code, reason, _ = await refused(
                games[ann].AbortGame(c4.AbortGameRequest(game_id=played))
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ABORT_TOO_LATE")
            await games[ann].Resign(c4.ResignRequest(game_id=played))

            # Scoring reads past the aborted game to the played one, and rates that alone.
            sheet = await scoresheet(scoring, played)
            assert sheet.reason == "RESIGNATION"
            code, reason, _ = await refused(
                scoring.GetScoresheet(
                    sc.GetScoresheetRequest(game_type="connect4x4", game_id=aborted)
                )
            )
            assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "SCORESHEET_NOT_FOUND")
            for player in (ann, bob):
                rating = (
                    await scoring.GetRating(
                        sc.GetRatingRequest(game_type="connect4x4", player_id=player)
                    )
                ).rating
                assert rating.games == 1


async def test_too_often_or_without_a_seat_or_a_clock_is_refused(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a window of 0, ann (to move first) is a laggard at once: bob may abort."""
    monkeypatch.setenv("PARLOR_ABORTS_PER_DAY", "2")
    monkeypatch.setenv("PARLOR_ABORT_WINDOW_SECONDS", "0")
    ann, bob = players()
    async with start_platform("connect4x4") as platform:
        async with seated(platform, ann, bob) as (games, game, _):
            first, second, third = [await game() for _ in range(3)]
            eve = c4_grpc.Connect4x4ServiceStub(platform.channel(f"eve-{ann}"))
            code, reason, _ = await refused(eve.AbortGame(c4.AbortGameRequest(game_id=first)))
            assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED")
            untimed = await game(common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_NONE))
            code, reason, _ = await refused(
                games[bob].AbortGame(c4.AbortGameRequest(game_id=untimed))
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_ABORTABLE")
            for game_id in (first, second):
                await games[bob].AbortGame(c4.AbortGameRequest(game_id=game_id))
            code, reason, metadata = await refused(
                games[bob].AbortGame(c4.AbortGameRequest(game_id=third))
            )
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_ABORTS")
            assert metadata == {"per_day": "2"}
            now = (await games[ann].GetGame(c4.GetGameRequest(game_id=third))).game
            assert now.status == c4.STATUS_IN_PROGRESS
            # the limit is the player's: once ann has moved, bob lags and ann may abort it
            await games[ann].PlayMove(c4.PlayMoveRequest(game_id=third, move="df"))
            await games[ann].AbortGame(c4.AbortGameRequest(game_id=third))


async def scoresheet(
    scoring: sc_grpc.ScoringServiceStub, game_id: str, seconds: float = 30.0
) -> sc.Scoresheet:
    """The game's scoresheet, once scoring has consumed its GameFinished."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            request = sc.GetScoresheetRequest(game_type="connect4x4", game_id=game_id)
            return (await scoring.GetScoresheet(request)).scoresheet
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
        assert asyncio.get_running_loop().time() < deadline, f"{game_id} not scored"
        await asyncio.sleep(0.1)
