"""Connect 4x4 end to end over gRPC, on real PostgreSQL and NATS JetStream.

Two players play to a win; every event is in the store and on NATS; a third
client replays the game move by move, and a watcher resumes from a version.
"""

from __future__ import annotations

import asyncio
import uuid

import grpc
import nats
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.eventstore import PostgresEventStore
from parlor.kit.status import reason_of

pytestmark = pytest.mark.integration


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


async def test_two_players_play_to_a_win_and_a_third_replays_it(
    start_platform, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform:
        async with (
            platform.channel("ada") as a_ch,
            platform.channel("bob") as b_ch,
            platform.service_channel() as s_ch,  # seats ada and bob, who agreed elsewhere
        ):
            ada, bob = pb_grpc.Connect4x4ServiceStub(a_ch), pb_grpc.Connect4x4ServiceStub(b_ch)
            host = pb_grpc.Connect4x4ServiceStub(s_ch)
            created = await host.CreateGame(
                pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob"))
            )
            assert created.game.status == pb.STATUS_IN_PROGRESS
            assert created.game.turn == 0
            moves = [
                ("ada", "af"),
                ("bob", "ab"),
                ("ada", "ab"),
                ("bob", "af"),
                ("ada", "af"),
                ("bob", "ab"),
                ("ada", "ab"),
            ]
            # Ada's vertical line weaves: a0 front, a1 back, a2 front, a3 back.
            last = None
            for i, (who, move) in enumerate(moves):
                stub = ada if who == "ada" else bob
                last = await stub.PlayMove(
                    pb.PlayMoveRequest(game_id=game_id, move=move, command_id=f"m{i}")
                )
            assert last is not None
            assert last.game.status == pb.STATUS_WON
            assert last.game.winner == 0
            assert last.game.end_reason == "FOUR_IN_A_LINE"
            assert [e.WhichOneof("body") for e in last.events] == [
                "checker_dropped",
                "game_won",
                "game_finished",
            ]

            # A retried command (the same move: m6 was "ab") returns the first answer and
            # appends nothing.
            again = await ada.PlayMove(
                pb.PlayMoveRequest(game_id=game_id, move="ab", command_id="m6")
            )
            assert again.game.version == last.game.version

            # The third client replays it move by move.
            async with platform.channel("carol") as c_ch:
                carol = pb_grpc.Connect4x4ServiceStub(c_ch)
                history = await carol.GetHistory(pb.GetHistoryRequest(game_id=game_id))
                versions = [e.info.version for e in history.events]
                assert versions == list(range(1, last.game.version + 1))
                notations = [e.notation for e in history.events if e.notation]
                assert notations == [m for _, m in moves]
                checkers = 0
                for event in history.events:
                    step = await carol.GetGame(
                        pb.GetGameRequest(game_id=game_id, version=event.info.version)
                    )
                    filled = sum(
                        h.content == pb.CONTENT_CHECKER for h in [*step.game.front, *step.game.back]
                    )
                    checkers += event.WhichOneof("body") == "checker_dropped"
                    assert filled == checkers
                final = await carol.GetGame(pb.GetGameRequest(game_id=game_id))
                assert final.game.front == last.game.front

                # A watcher resuming after version 3 gets the rest, then the stream ends.
                watched = [
                    r.event.info.version
                    async for r in carol.WatchGame(
                        pb.WatchGameRequest(game_id=game_id, after_version=3)
                    )
                ]
                assert watched == list(range(4, last.game.version + 1))

        # Every event is in the store...
        store = PostgresEventStore(database_url)
        try:
            stored = await store.read_stream(f"connect4x4-{game_id}")
        finally:
            await store.close()
        assert [e.version for e in stored] == versions

        # ...and on NATS, published by the relay, each exactly once.
        nc = await nats.connect(nats_url)
        try:
            js = nc.jetstream()
            sub = await js.subscribe(
                f"{subject_prefix}.connect4x4.{game_id}.*", ordered_consumer=True
            )
            seen: list[int] = []
            while len(seen) < len(stored):
                msg = await sub.next_msg(timeout=10)
                seen.append(int(msg.headers["Parlor-Version"]))
            await asyncio.sleep(0.3)
            with pytest.raises(nats.errors.TimeoutError):
                await sub.next_msg(timeout=0.5)
        finally:
            await nc.close()
        assert seen == versions


async def test_errors_name_the_rule_the_seat_and_the_game(start_platform) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform:
        async with (
            platform.channel("ada") as a_ch,
            platform.channel("bob") as b_ch,
            platform.service_channel() as s_ch,  # seats ada and bob, who agreed elsewhere
        ):
            ada, bob = pb_grpc.Connect4x4ServiceStub(a_ch), pb_grpc.Connect4x4ServiceStub(b_ch)
            host = pb_grpc.Connect4x4ServiceStub(s_ch)
            await host.CreateGame(pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob")))

            async def error(call) -> grpc.aio.AioRpcError:  # type: ignore[no-untyped-def]
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call
                return caught.value

            e = await error(bob.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af")))
            assert (e.code(), reason_of(e)) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_TURN")
            e = await error(ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="zz")))
            assert (e.code(), reason_of(e)) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_NOTATION",
            )
            e = await error(ada.PlayMove(pb.PlayMoveRequest(game_id="nope", move="af")))
            assert (e.code(), reason_of(e)) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
            async with platform.channel("eve") as e_ch:
                eve = pb_grpc.Connect4x4ServiceStub(e_ch)
                e = await error(eve.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af")))
                assert (e.code(), reason_of(e)) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED")
            for _ in range(3):  # column a, front side: six checkers of alternating owners
                await ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af"))
                await bob.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af"))
            e = await error(ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af")))
            assert (e.code(), reason_of(e)) == (grpc.StatusCode.FAILED_PRECONDITION, "COLUMN_FULL")
            state = await ada.GetGame(pb.GetGameRequest(game_id=game_id))
            assert state.game.version == 2 + 6  # nothing invalid was stored


async def test_a_replayed_command_id_lets_no_one_act_for_a_seat_not_theirs(start_platform) -> None:
    """A known command id is answered from the store: the seat check must still hold."""
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform:
        async with (
            platform.channel("ada") as a_ch,
            platform.channel("bob") as b_ch,
            platform.service_channel() as s_ch,  # seats ada and bob, who agreed elsewhere
        ):
            ada, bob = pb_grpc.Connect4x4ServiceStub(a_ch), pb_grpc.Connect4x4ServiceStub(b_ch)
            host = pb_grpc.Connect4x4ServiceStub(s_ch)
            await host.CreateGame(pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob")))
            await ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="af", command_id="a1"))
            async with platform.channel("eve") as e_ch:
                eve = pb_grpc.Connect4x4ServiceStub(e_ch)
                calls = [
                    (
                        eve.PlayMove(
                            pb.PlayMoveRequest(game_id=game_id, move="bf", command_id="a1")
                        ),
                        "NOT_SEATED",
                    ),
                    (eve.Resign(pb.ResignRequest(game_id=game_id, command_id="a1")), "NOT_SEATED"),
                    (
                        bob.Resign(pb.ResignRequest(game_id=game_id, seat=0, command_id="a1")),
                        "NOT_YOUR_SEAT",
                    ),
                ]
                for call, reason in calls:
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await call
                    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
                    assert reason_of(refused.value) == reason
            retried = await ada.PlayMove(
                pb.PlayMoveRequest(game_id=game_id, move="af", command_id="a1")
            )
            assert retried.game.version == 3  # ada's own retry: her first answer, nothing new


async def test_a_bot_seat_answers_at_once(start_platform) -> None:
    game_id = uuid.uuid4().hex
    async with start_platform("connect4x4") as platform, platform.channel("ada") as ch:
        ada = pb_grpc.Connect4x4ServiceStub(ch)
        await ada.CreateGame(
            pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bot:strong"))
        )
        reply = await ada.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="df"))
        assert [e.WhichOneof("body") for e in reply.events][:2] == [
            "checker_dropped",
            "checker_dropped",
        ] or reply.events[1].WhichOneof("body") == "blocker_dropped"
        assert reply.game.turn == 0
        assert reply.game.moves == 2
