"""The Python starter bot (examples/bots/parlor_bot.py) against the real platform: two
of them, registered by their owner, play a whole Connect 4x4 game against each other,
one challenging the other by handle, each over its one WatchPlayer stream."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import secrets
from pathlib import Path
from typing import Any

import pytest
from kits.bots import leave_pool_with_secret
from kits.scoring import eventually

from parlor.accounts import ExternalIdentity
from parlor.bots.v1 import bots_pb2 as bpb
from parlor.bots.v1 import bots_pb2_grpc as bpb_grpc
from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit import client

pytestmark = [pytest.mark.integration]

BOT = Path(__file__).parents[3] / "examples" / "bots" / "parlor_bot.py"


def starter() -> Any:
    spec = importlib.util.spec_from_file_location("parlor_bot", BOT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def handle() -> str:
    return "sb" + secrets.token_hex(5).translate(str.maketrans("0123456789", "ghjkmnpqrs"))


async def test_two_starter_bots_play_a_whole_game(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    bot = starter()
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
