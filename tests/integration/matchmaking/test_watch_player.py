"""WatchPlayer across a service restart and two replicas: a scripted client that reconnects
with its last position sees every challenge, offer and turn that concerns it exactly once
and in order, counted against the player's inbox in the event store.

Replica one serves the watch; replica two (with Connect 4x4) takes the other player's
calls, so every change reaches the watch from another process through the store. One is
stopped and started again while the client is away, and it resumes there."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

import grpc
import pytest
from kits.scoring import eventually

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.services.matchmaking.challenges import inbox_stream, notice_of
from parlor.services.matchmaking.playerwatch import KIND
from parlor.services.matchmaking.turnfeed import TURN, turn_of

pytestmark = [pytest.mark.integration]

Seen = list[tuple[int, int, str]]


def guest() -> str:
    return "guest-" + secrets.token_hex(8)


class Watcher:
    """bob's client: one watch at a time, keeping every notice and the last position."""

    def __init__(self) -> None:
        self.seen: Seen = []
        self.notices: list[Any] = []
        self.current: list[str] = []
        self.position = 0
        self.task: asyncio.Task[None] | None = None

    def connect(self, channel: grpc.aio.Channel) -> None:
        self.task = asyncio.create_task(self._follow(channel))

    async def _follow(self, channel: grpc.aio.Channel) -> None:
        stub = ch_grpc.ChallengeServiceStub(channel)
        async for message in stub.WatchPlayer(ch.WatchPlayerRequest(after=self.position)):
            self.current += [c.challenge_id for c in message.current]
            for notice in message.notices:
                self.notices.append(notice)
                named = notice.challenge.challenge_id or notice.game_id
                self.seen.append((notice.position, notice.kind, named))
            self.position = message.position

    async def until(self, count: int) -> None:
        async def enough() -> bool:
            if self.task is not None and self.task.done():
                self.task.result()  # the watch failed: say why
            return len(self.seen) >= count

        await eventually(enough, 60)

    async def disconnect(self) -> None:
        assert self.task is not None
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def test_a_reconnecting_client_sees_every_change_once_in_order(
    start_platform: Any, database_url: str
) -> None:
    ann, bob = guest(), guest()
    bob_client = Watcher()
    async with contextlib.AsyncExitStack() as stack:
        two = await stack.enter_async_context(start_platform("matchmaking", "connect4x4"))
        ann_c = await stack.enter_async_context(two.channel(ann))
        bob_on_two = await stack.enter_async_context(two.channel(bob))
        ann_s, bob_two_s = (
            ch_grpc.ChallengeServiceStub(ann_c),
            ch_grpc.ChallengeServiceStub(bob_on_two),
        )

        async def challenge() -> str:
            made = await ann_s.CreateChallenge(
                ch.CreateChallengeRequest(
                    game_type="connect4x4", invitees=[bob], seat_choice=ch.SEAT_CHOICE_FIRST
                )
            )
            return str(made.challenge.challenge_id)

        first = await challenge()  # before bob watches: the current state shows it
        one = start_platform("matchmaking")
        replica = await one.__aenter__()
        try:
            bob_on_one = replica.channel(bob)
            bob_client.connect(bob_on_one)

            async def caught_up() -> bool:
                return bob_client.position == 1

            await eventually(caught_up, 60)
            assert bob_client.current == [first]
            second, third = await challenge(), await challenge()
            await bob_client.until(2)
            await bob_client.disconnect()
            await bob_on_one.close()
            # bob is away: changes go on, and replica one restarts
            await ann_s.CancelChallenge(ch.CancelChallengeRequest(challenge_id=second))
            fourth = await challenge()
        finally:
            await one.__aexit__(None, None, None)
        await bob_two_s.DeclineChallenge(
            ch.DeclineChallengeRequest(challenge_id=third, reason=ch.DECLINE_REASON_TOO_FAST)
        )
        async with start_platform("matchmaking") as restarted, restarted.channel(bob) as again:
            bob_client.connect(again)
            # a game made from the first challenge, then a rematch offer after it ends
            accepted = await bob_two_s.AcceptChallenge(
                ch.AcceptChallengeRequest(challenge_id=first)
            )
            game_id = accepted.challenge.match_id
            games = c4_grpc.Connect4x4ServiceStub(ann_c)

            async def made() -> Any:
                return (await games.GetGame(c4.GetGameRequest(game_id=game_id))).game

            await eventually(made, 60)
            await games.PlayMove(c4.PlayMoveRequest(game_id=game_id, move="af"))
            await bob_client.until(8)  # bob's turn: the game, its version, his deadline
            turn = bob_client.notices[-1]
            assert (turn.kind, turn.game_id, turn.game_type) == (
                ch.NOTICE_KIND_YOUR_TURN,
                game_id,
                "connect4x4",
            )
            assert turn.game_version > 1
            assert turn.HasField("deadline")  # two people: the game type's default clock
            await c4_grpc.Connect4x4ServiceStub(bob_on_two).Resign(
                c4.ResignRequest(game_id=game_id)
            )
            offer = await ann_s.OfferRematch(
                ch.OfferRematchRequest(game_type="connect4x4", game_id=game_id)
            )
            await bob_client.until(9)
            await asyncio.sleep(1.5)  # anything more would be a repeat
            await bob_client.disconnect()

    store = PostgresEventStore(database_url)
    try:
        recorded = await store.read_stream(inbox_stream(bob))
    finally:
        await store.close()
    truth = [
        (e.version, ch.NOTICE_KIND_YOUR_TURN, turn_of(e).game_id)
        if e.type == TURN
        else (e.version, KIND[notice_of(e).event], notice_of(e).challenge_id)
        for e in recorded
        if e.version > 1  # the first was shown as the current state
    ]
    assert bob_client.seen == truth
    assert [p for p, _, _ in bob_client.seen] == list(range(2, 2 + len(truth)))
    assert [(k, c) for _, k, c in truth] == [
        (ch.NOTICE_KIND_CHALLENGE_ISSUED, second),
        (ch.NOTICE_KIND_CHALLENGE_ISSUED, third),
        (ch.NOTICE_KIND_CHALLENGE_CANCELLED, second),
        (ch.NOTICE_KIND_CHALLENGE_ISSUED, fourth),
        (ch.NOTICE_KIND_CHALLENGE_DECLINED, third),
        (ch.NOTICE_KIND_CHALLENGE_ACCEPTED, first),
        (ch.NOTICE_KIND_GAME_CREATED, first),
        (ch.NOTICE_KIND_YOUR_TURN, game_id),
        (ch.NOTICE_KIND_CHALLENGE_ISSUED, offer.challenge.challenge_id),
    ]
