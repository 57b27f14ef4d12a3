"""The Python starter bot (examples/bots/parlor_bot.py) against the real platform: two
of them, registered by their owner, play a whole Connect 4x4 game against each other,
one challenging the other by handle, each over its one WatchPlayer stream; and one whose
connection is cut resumes from the last position it handled, so a turn noted while it was
away is played."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

import pytest
from kits.bots import leave_pool, leave_pool_with_secret, register_bot, starter_bot
from kits.proxy import SilentProxy
from kits.scoring import eventually

from parlor.accounts import ExternalIdentity
from parlor.bots.v1 import bots_pb2 as bpb
from parlor.bots.v1 import bots_pb2_grpc as bpb_grpc
from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.client import ParlorClient
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.kit import client
from parlor.services.matchmaking.challenges import inbox_stream
from parlor.services.matchmaking.turnfeed import TURN

pytestmark = [pytest.mark.integration]


def handle() -> str:
    return "sb" + secrets.token_hex(5).translate(str.maketrans("0123456789", "ghjkmnpqrs"))


async def test_two_starter_bots_play_a_whole_game(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    bot = starter_bot()
    async with start_platform("matchmaking", "connect4x4") as platform:
        (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
        owner = await component.extra["accounts"].create(
            "Owner", ExternalIdentity("https://idp.example", secrets.token_hex(8))
        )
        names, made = [handle(), handle()], []
        async with client.channel(platform.target, platform.token(owner.player_id)) as mine:
            for name in names:
                made.append(
                    await bpb_grpc.BotServiceStub(mine).RegisterBot(
                        bpb.RegisterBotRequest(handle=name, description="starter")
                    )
                )
        positions: list[list[int]] = [[], []]
        tasks = [
            asyncio.create_task(bot.play(platform.target, m.secret, 0, positions[n].append))
            for n, m in enumerate(made)
        ]
        try:
            async with client.channel(platform.target, None) as anonymous:
                token = (
                    await bpb_grpc.BotServiceStub(anonymous).ExchangeBotSecret(
                        bpb.ExchangeBotSecretRequest(secret=made[1].secret)
                    )
                ).access_token
            async with client.channel(platform.target, token) as second:
                challenges = ch_grpc.ChallengeServiceStub(second)

                async def offered() -> Any:  # once the first has declared what it accepts
                    made = await challenges.CreateChallenge(
                        ch.CreateChallengeRequest(game_type="connect4x4", invitees=[names[0]])
                    )
                    if made.challenge.status == ch.CHALLENGE_STATUS_DECLINED:
                        return None
                    return made.challenge

                challenge = await eventually(offered, 60)

                async def finished() -> Any:
                    for task in tasks:
                        if task.done():
                            task.result()
                    got = await challenges.GetChallenge(
                        ch.GetChallengeRequest(challenge_id=challenge.challenge_id)
                    )
                    if not got.challenge.match_id:
                        return None
                    games = c4_grpc.Connect4x4ServiceStub(second)
                    game = (
                        await games.GetGame(c4.GetGameRequest(game_id=got.challenge.match_id))
                    ).game
                    return game if game.status != c4.STATUS_IN_PROGRESS else None

                game = await eventually(finished, 300)
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            for m in made:  # they leave the shared database's pool as they stop
                await leave_pool_with_secret(platform, m.secret)
    assert game.status in {c4.STATUS_WON, c4.STATUS_TIED}
    assert game.end_reason != "timeout"
    assert {s.player_id for s in game.seats} == {m.bot.bot_id for m in made}
    for seen in positions:
        assert seen == sorted(set(seen))  # positions only go forward


async def test_a_starter_bot_cut_off_resumes_from_the_last_position_it_handled(
    start_platform: Any, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot that reconnected from the position it started with (0: "from now") would skip
    the "your turn" noted while it was away, and its game would wait for it for ever."""
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    monkeypatch.setenv("PARLOR_TURN_FEED_POLL_SECONDS", "0.05")
    afters: list[int] = []
    stream = ParlorClient.stream

    def logged(self: Any, method: Any, request: Any) -> Any:
        afters.append(request.after)
        return stream(self, method, request)

    monkeypatch.setattr(ParlorClient, "stream", logged)
    program = starter_bot()
    store = PostgresEventStore(database_url)
    async with start_platform("matchmaking", "connect4x4") as platform:
        bot = await register_bot(platform)
        person = platform.token("guest-" + secrets.token_hex(8))
        positions: list[int] = []
        async with SilentProxy(platform.server.port) as proxy:
            task = asyncio.create_task(program.play(proxy.target, bot.secret, 0, positions.append))
            try:
                async with client.channel(platform.target, person) as channel:
                    challenges = ch_grpc.ChallengeServiceStub(channel)
                    games = c4_grpc.Connect4x4ServiceStub(channel)
                    made = await challenges.CreateChallenge(
                        ch.CreateChallengeRequest(
                            game_type="connect4x4",
                            invitees=[bot.handle],
                            seat_choice=ch.SEAT_CHOICE_FIRST,
                        )
                    )

                    async def matched() -> str:
                        got = await challenges.GetChallenge(
                            ch.GetChallengeRequest(challenge_id=made.challenge.challenge_id)
                        )
                        return str(got.challenge.match_id)

                    game_id = await eventually(matched, 30)
                    inbox = inbox_stream(bot.bot_id)

                    async def caught_up() -> bool:  # the bot has handled its whole inbox
                        last = await store.stream_version(inbox)
                        return bool(positions) and positions[-1] == last

                    await eventually(caught_up, 30)
                    kept = positions[-1]
                    proxy.cut()  # the bot's stream breaks, and it cannot come back yet
                    game = (await games.GetGame(c4.GetGameRequest(game_id=game_id))).game
                    await games.PlayMove(
                        c4.PlayMoveRequest(
                            game_id=game_id,
                            move=game.legal_moves[0],
                            command_id=secrets.token_hex(8),
                        )
                    )

                    async def noted() -> bool:  # the bot's "your turn", while it is away
                        return any(e.type == TURN for e in await store.read_stream(inbox))

                    await eventually(noted, 30)
                    proxy.mend()

                    async def answered() -> bool:
                        assert not task.done(), task
                        got = (await games.GetGame(c4.GetGameRequest(game_id=game_id))).game
                        return got.version > game.version + 1

                    await eventually(answered, 30)
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                await store.close()
                await leave_pool(platform, bot)
    assert afters[0] == 0
    assert afters[1:] == [kept] * (len(afters) - 1)  # every reconnect from where it was
