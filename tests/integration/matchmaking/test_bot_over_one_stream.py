"""A bot account plays over one stream (WatchPlayer), with no polling call, across a
restart of the platform: it declares what it accepts, challenges it cannot take are
declined for it with a reason, and it accepts the others and plays whole Connect 4x4 games
with the ordinary GetGame and PlayMove, fetched once per "your turn" notice. Reconnecting
with its last position, it misses and repeats nothing (checked against its inbox)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from kits.scoring import eventually

from parlor.accounts import ExternalIdentity
from parlor.bots.v1 import bots_pb2 as bpb
from parlor.bots.v1 import bots_pb2_grpc as bpb_grpc
from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.kit import client
from parlor.services.matchmaking.challenges import inbox_stream
from parlor.services.matchmaking.turnfeed import TURN

pytestmark = [pytest.mark.integration]


@dataclass
class BotClient:
    """What a bot written from docs/bots.md does: one WatchPlayer stream; accept what is
    offered; on "your turn", read the game as its seat sees it and play a legal move."""

    token: str
    position: int = 0
    positions: list[int] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    games: set[str] = field(default_factory=set)
    task: asyncio.Task[None] | None = None

    def connect(self, target: str) -> None:
        self.task = asyncio.create_task(self._follow(target))

    async def _follow(self, target: str) -> None:
        async with client.channel(target, self.token) as channel:
            inbox = ch_grpc.ChallengeServiceStub(channel)
            games = c4_grpc.Connect4x4ServiceStub(channel)
            self.calls.append("WatchPlayer")
            watch = inbox.WatchPlayer(ch.WatchPlayerRequest(after=self.position))
            async for message in watch:
                for current in message.current:
                    await self._offered(inbox, current)
                for notice in message.notices:
                    if notice.kind == ch.NOTICE_KIND_CHALLENGE_ISSUED:
                        await self._offered(inbox, notice.challenge)
                    elif notice.kind == ch.NOTICE_KIND_YOUR_TURN:
                        await self._move(games, notice)
                    # handled: a notice the client was stopped in is handled again after
                    # the reconnect (its move's command id makes that harmless)
                    self.positions.append(notice.position)
                    self.position = notice.position
                self.position = max(self.position, message.position)

    async def _offered(self, inbox: Any, challenge: Any) -> None:
        if challenge.status != ch.CHALLENGE_STATUS_PENDING:
            return
        self.calls.append("AcceptChallenge")
        with contextlib.suppress(grpc.aio.AioRpcError):  # taken back meanwhile
            await inbox.AcceptChallenge(
                ch.AcceptChallengeRequest(challenge_id=challenge.challenge_id)
            )

    async def _move(self, games: Any, notice: Any) -> None:
        self.calls.append("GetGame")
        seen = (await games.GetGame(c4.GetGameRequest(game_id=notice.game_id))).game
        self.games.add(notice.game_id)
        if seen.version != notice.game_version or not seen.legal_moves:
            return  # moved on since the notice (its next turn will come)
        self.calls.append("PlayMove")
        with contextlib.suppress(grpc.aio.AioRpcError):  # a retry of a move made
            await games.PlayMove(
                c4.PlayMoveRequest(
                    game_id=notice.game_id,
                    move=seen.legal_moves[0],
                    command_id=f"{notice.game_id}-{seen.version}",
                )
            )

    async def disconnect(self) -> None:
        assert self.task is not None
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await self.task

    def check(self) -> None:
        if self.task is not None and self.task.done() and not self.task.cancelled():
            self.task.result()


async def test_a_bot_plays_whole_games_over_one_stream_across_a_restart(
    start_platform: Any, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    ann = "guest-" + secrets.token_hex(8)
    handle = "c4" + secrets.token_hex(4).translate(str.maketrans("0123456789", "ghjkmnpqrs"))
    async with contextlib.AsyncExitStack() as stack:
        first = start_platform("matchmaking", "connect4x4")
        platform = await first.__aenter__()
        try:
            (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
            owner = await component.extra["accounts"].create(
                "Owner", ExternalIdentity("https://idp.example", ann)
            )
            async with client.channel(platform.target, platform.token(owner.player_id)) as mine:
                made = await bpb_grpc.BotServiceStub(mine).RegisterBot(
                    bpb.RegisterBotRequest(handle=handle, description="first legal move")
                )
            async with client.channel(platform.target, None) as anonymous:
                issued = await bpb_grpc.BotServiceStub(anonymous).ExchangeBotSecret(
                    bpb.ExchangeBotSecretRequest(secret=made.secret)
                )
            bot_id, token = issued.bot_id, issued.access_token
            async with client.channel(platform.target, token) as as_bot:
                await bpb_grpc.BotServiceStub(as_bot).DeclareAccepts(
                    bpb.DeclareAcceptsRequest(
                        accepts=bpb.Accepts(game_types=["connect4x4"], max_games=1)
                    )
                )
            ann_c = await stack.enter_async_context(platform.channel(ann))
            ann_bot = BotClient(platform.token(ann))  # ann plays as scripted as the bot
            bot = BotClient(token)
            bot.connect(platform.target)
            ann_bot.connect(platform.target)
            ann_s = ch_grpc.ChallengeServiceStub(ann_c)

            async def challenge(game_type: str = "connect4x4") -> Any:
                return (
                    await ann_s.CreateChallenge(
                        ch.CreateChallengeRequest(
                            game_type=game_type, invitees=[handle], seat_choice=ch.SEAT_CHOICE_FIRST
                        )
                    )
                ).challenge

            # a game type it did not declare: declined for it at once, with the reason
            refused = await challenge("takefour")
            assert refused.status == ch.CHALLENGE_STATUS_DECLINED
            assert refused.decline_reason == ch.DECLINE_REASON_NOT_THIS_GAME

            game_one = await challenge()

            async def in_game() -> bool:
                bot.check()
                return "PlayMove" in bot.calls

            await eventually(in_game, 60)
            await asyncio.sleep(1.5)  # older than the game directory's catch-up (1 s)
            full = await challenge()  # max_games 1, and one unfinished: not now
            assert full.status == ch.CHALLENGE_STATUS_DECLINED
            assert full.decline_reason == ch.DECLINE_REASON_NOT_NOW

            async def finished(challenge_id: str) -> Any:
                got = await ann_s.GetChallenge(ch.GetChallengeRequest(challenge_id=challenge_id))
                game_id = got.challenge.match_id
                if not game_id:
                    return None
                games = c4_grpc.Connect4x4ServiceStub(ann_c)
                game = (await games.GetGame(c4.GetGameRequest(game_id=game_id))).game
                bot.check()
                return game if game.status != c4.STATUS_IN_PROGRESS else None

            one = await eventually(lambda: finished(game_one.challenge_id), 300)
            game_two = await challenge()

            async def two_moves_in() -> bool:
                bot.check()
                return bot.calls.count("PlayMove") >= one_moves + 2

            one_moves = bot.calls.count("PlayMove")
            await eventually(two_moves_in, 120)
            await bot.disconnect()
            await ann_bot.disconnect()
            await stack.aclose()
        finally:
            await first.__aexit__(None, None, None)

        # the whole platform restarts; the bot exchanges its secret again and resumes
        async with start_platform("matchmaking", "connect4x4") as again:
            async with client.channel(again.target, None) as anonymous:
                bot.token = (
                    await bpb_grpc.BotServiceStub(anonymous).ExchangeBotSecret(
                        bpb.ExchangeBotSecretRequest(secret=made.secret)
                    )
                ).access_token
            ann_bot.token = again.token(ann)
            bot.connect(again.target)
            ann_bot.connect(again.target)
            async with again.channel(ann) as ann_c:
                ann_s = ch_grpc.ChallengeServiceStub(ann_c)
                two = await eventually(lambda: finished(game_two.challenge_id), 300)
                await asyncio.sleep(1.0)  # anything more would be a repeat
                await bot.disconnect()
                await ann_bot.disconnect()

    assert {one.status, two.status} <= {c4.STATUS_WON, c4.STATUS_TIED}
    store = PostgresEventStore(database_url)
    try:
        recorded = await store.read_stream(inbox_stream(bot_id))
    finally:
        await store.close()
    # every notice of its inbox once, in order, across the restart
    assert bot.positions == [e.version for e in recorded]
    # no polling: one GetGame per "your turn" (and one more if the client was stopped
    # while handling one), one stream per connection
    turns = sum(1 for e in recorded if e.type == TURN)
    assert turns <= bot.calls.count("GetGame") <= turns + 1
    assert bot.calls.count("WatchPlayer") == 2
