"""A player who stops moving loses on time, on the real platform (PostgreSQL and NATS).

Two people play Connect 4x4 at 2 s a move; after one move the second never moves again.
No one calls the service: the sweeper fires the timeout within the limit plus one sweep
interval, the game ends with the timeout in its history and its clocks, a late move is
answered TIMED_OUT, and scoring records the loss in both players' records.

The game is created as matchmaking would seat two people who agreed to play (its service
identity vouches for them, so scoring rates the game), with a time control matchmaking
does not offer yet: 2 s a move. It is not a match, so a seat that never moved loses
rather than the game being aborted (that is the unit tests' part).
"""

from __future__ import annotations

import asyncio
import time
import uuid

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc

pytestmark = pytest.mark.integration

LIMIT_SECONDS = 2
SWEEP_SECONDS = 0.5
SLACK_SECONDS = 1.5
"""Room for a loaded test machine: a store round trip, the doorbell, the poll below."""


async def test_a_player_who_stops_moving_loses_within_the_limit_and_one_sweep(
    start_platform, monkeypatch
) -> None:
    monkeypatch.setenv("PARLOR_CLOCK_SWEEP_SECONDS", str(SWEEP_SECONDS))
    tag = uuid.uuid4().hex[:6]
    ann, bob = f"ann-{tag}", f"bob-{tag}"
    async with start_platform("scoring", "connect4x4") as platform:
        service = client.channel(
            platform.target, platform.token("service:matchmaking", roles=("service",))
        )
        chans = {p: platform.channel(p) for p in (ann, bob)}
        try:
            games = {p: c4_grpc.Connect4x4ServiceStub(c) for p, c in chans.items()}
            created = await c4_grpc.Connect4x4ServiceStub(service).CreateGame(
                c4.CreateGameRequest(
                    seats=[
                        common_pb2.Seat(player_id=ann, display_name="Ann"),
                        common_pb2.Seat(player_id=bob, display_name="Bob"),
                    ],
                    time_control=common_pb2.TimeControl(
                        kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=LIMIT_SECONDS
                    ),
                )
            )
            game_id = created.game.game_id
            assert created.game.clocks.time_control.move_seconds == LIMIT_SECONDS
            moved = await games[ann].PlayMove(c4.PlayMoveRequest(game_id=game_id, move="df"))
            started = time.monotonic()
            bob_clock = moved.game.clocks.seats[1]
            assert bob_clock.running
            assert bob_clock.HasField("deadline")
            assert not moved.game.clocks.seats[0].running

            # Nobody calls the game: the sweeper must end it.
            while True:
                now = (await games[ann].GetGame(c4.GetGameRequest(game_id=game_id))).game
                if now.status != c4.STATUS_IN_PROGRESS:
                    break
                assert time.monotonic() - started < LIMIT_SECONDS + SWEEP_SECONDS + 10
                await asyncio.sleep(0.05)
            elapsed = time.monotonic() - started
            print(f"timed out {elapsed:.2f} s after the last move (limit {LIMIT_SECONDS} s)")
            assert LIMIT_SECONDS - 0.1 <= elapsed <= LIMIT_SECONDS + SWEEP_SECONDS + SLACK_SECONDS
            assert now.status == c4.STATUS_WON
            assert now.winner == 0
            assert now.end_reason == "TIMEOUT"
            assert list(now.timed_out) == [False, True]
            assert now.clocks.seats[1].timed_out
            assert not any(seat.running for seat in now.clocks.seats)

            history = await games[ann].GetHistory(c4.GetHistoryRequest(game_id=game_id))
            bodies = [e.WhichOneof("body") for e in history.events]
            assert bodies[-3:] == ["player_timed_out", "game_won", "game_finished"]
            finished = history.events[-1].game_finished
            assert finished.reason == "TIMEOUT"
            assert [r.timed_out for r in finished.results] == [False, True]

            with pytest.raises(grpc.aio.AioRpcError) as late:
                await games[bob].PlayMove(c4.PlayMoveRequest(game_id=game_id, move="af"))
            assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION

            scoring = sc_grpc.ScoringServiceStub(chans[ann])

            async def rating(player: str) -> sc.GetRatingResponse:
                return await scoring.GetRating(
                    sc.GetRatingRequest(game_type="connect4x4", player_id=player)
                )

            for _ in range(200):
                try:
                    lost = (await rating(bob)).rating
                    if lost.losses:
                        break
                except grpc.aio.AioRpcError as exc:
                    if exc.code() != grpc.StatusCode.NOT_FOUND:
                        raise
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("scoring never recorded the timeout")
            won = (await rating(ann)).rating
            assert (lost.losses, lost.wins) == (1, 0)
            assert (won.wins, won.losses) == (1, 0)
            # Two identities new to scoring: the records count, the ratings learn nothing
            # (a result counts as far as the opponent is someone: scoring's README).
            assert (lost.rated, lost.provisional, won.rated) == (False, True, False)
        finally:
            await service.close()
            for chan in chans.values():
                await chan.close()


async def test_a_late_move_is_answered_timed_out_and_the_timeout_stands(start_platform) -> None:
    tag = uuid.uuid4().hex[:6]
    ann, bob = f"ann-{tag}", f"bob-{tag}"
    async with start_platform("connect4x4") as platform:
        service = platform.service_channel()
        chan = platform.channel(ann)
        try:
            created = await c4_grpc.Connect4x4ServiceStub(service).CreateGame(
                c4.CreateGameRequest(
                    seats=[common_pb2.Seat(player_id=ann), common_pb2.Seat(player_id=bob)],
                    time_control=common_pb2.TimeControl(
                        kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=1
                    ),
                )
            )
            game_id = created.game.game_id
            await asyncio.sleep(1.2)
            with pytest.raises(grpc.aio.AioRpcError) as late:
                await c4_grpc.Connect4x4ServiceStub(chan).PlayMove(
                    c4.PlayMoveRequest(game_id=game_id, move="df")
                )
            assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(late.value) in ("TIMED_OUT", "GAME_OVER")
            game = (
                await c4_grpc.Connect4x4ServiceStub(chan).GetGame(
                    c4.GetGameRequest(game_id=game_id)
                )
            ).game
            assert game.status == c4.STATUS_WON
            assert game.winner == 1
            assert list(game.timed_out) == [True, False]
        finally:
            await service.close()
            await chan.close()
