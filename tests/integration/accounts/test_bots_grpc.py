"""BotService over gRPC: the matchmaking component on PostgreSQL. An account registers a
bot, the bot's secret becomes a token with the role "bot", and each refusal is a gRPC code
and a reason."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from parlor.accounts import ExternalIdentity
from parlor.bots.v1 import bots_pb2 as pb
from parlor.bots.v1 import bots_pb2_grpc as pb_grpc
from parlor.identity.v1 import identity_pb2 as ipb
from parlor.identity.v1 import identity_pb2_grpc as ipb_grpc
from parlor.kit import client
from parlor.kit.auth import verify_token
from parlor.kit.status import reason_of

pytestmark = [pytest.mark.integration]


@pytest.fixture
async def platform(start_platform: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    # every tokenless call here (the exchanges) comes from 127.0.0.1: one visitor's budget
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    async with start_platform("matchmaking") as running:
        yield running


async def refusal(call: Any, request: Any) -> tuple[grpc.StatusCode, str | None]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(request)
    return error.value.code(), reason_of(error.value)


async def account(platform: Any, unique: str, n: int = 0) -> str:
    """An account made in the platform's own store (signing in has its own tests)."""
    (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
    who = ExternalIdentity("https://idp.example", f"bots-{unique}-{n}")
    return str((await component.extra["accounts"].create("Ann", who)).player_id)


async def test_register_exchange_rotate_revoke_and_disable(platform: Any, unique: str) -> None:
    owner = await account(platform, unique)
    handle = f"c4x{unique.replace('-', '')}"[:14]
    async with client.channel(platform.target, platform.token(owner)) as mine:
        stub = pb_grpc.BotServiceStub(mine)
        made = await stub.RegisterBot(pb.RegisterBotRequest(handle=handle, description="c4"))
        bot_id, secret = made.bot.bot_id, made.secret
        assert (made.bot.owner_id, made.bot.handle, made.bot.has_secret) == (owner, handle, True)
        assert await refusal(stub.RegisterBot, pb.RegisterBotRequest(handle=handle)) == (
            grpc.StatusCode.ALREADY_EXISTS,
            "HANDLE_TAKEN",
        )
        assert await refusal(stub.RegisterBot, pb.RegisterBotRequest(handle="b0t")) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "HANDLE_RESERVED",
        )

    # the secret, without any token, becomes the bot's token with the role "bot"
    async with client.channel(platform.target, None) as anonymous:
        exchange = pb_grpc.BotServiceStub(anonymous).ExchangeBotSecret
        issued = await exchange(pb.ExchangeBotSecretRequest(secret=secret))
        assert issued.bot_id == bot_id
        identity = verify_token(platform.auth, issued.access_token)
        assert (identity.player_id, identity.roles) == (bot_id, ("bot",))
        assert await refusal(exchange, pb.ExchangeBotSecretRequest(secret=secret + "x")) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "BOT_SECRET_INVALID",
        )

    async with client.channel(platform.target, issued.access_token) as as_bot:
        bot_stub = pb_grpc.BotServiceStub(as_bot)
        # a bot registers no bot, and renews its token only by exchanging its secret again
        assert await refusal(bot_stub.RegisterBot, pb.RegisterBotRequest(handle="zzzbot")) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "NOT_AN_ACCOUNT",
        )
        assert (
            await refusal(
                ipb_grpc.IdentityServiceStub(as_bot).RefreshToken, ipb.RefreshTokenRequest()
            )
        )[0] == grpc.StatusCode.FAILED_PRECONDITION
        seen = await bot_stub.GetBots(pb.GetBotsRequest(bot_ids=[bot_id, owner, "nope"]))
        assert [b.handle for b in seen.bots] == [handle]

    # a guest, or a person's token, never becomes the bot's; nor does its owner's
    stranger = await account(platform, unique, 1)
    async with client.channel(platform.target, platform.token(stranger)) as theirs:
        stub = pb_grpc.BotServiceStub(theirs)
        assert await refusal(stub.RotateBotSecret, pb.RotateBotSecretRequest(bot_id=bot_id)) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_YOUR_BOT",
        )
        assert await refusal(stub.DisableBot, pb.DisableBotRequest(bot_id=bot_id)) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_AN_OPERATOR",
        )
    async with client.channel(platform.target, platform.token("guest-00112233aabbccdd")) as guest:
        assert await refusal(
            pb_grpc.BotServiceStub(guest).RegisterBot, pb.RegisterBotRequest(handle="guestbot1")
        ) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_AN_ACCOUNT")

    async with client.channel(platform.target, platform.token(owner)) as mine:
        stub = pb_grpc.BotServiceStub(mine)
        rotated = await stub.RotateBotSecret(pb.RotateBotSecretRequest(bot_id=bot_id))
        async with client.channel(platform.target, None) as anonymous:
            exchange = pb_grpc.BotServiceStub(anonymous).ExchangeBotSecret
            assert (await refusal(exchange, pb.ExchangeBotSecretRequest(secret=secret)))[1] == (
                "BOT_SECRET_INVALID"
            )
            await exchange(pb.ExchangeBotSecretRequest(secret=rotated.secret))
            await stub.RevokeBotSecret(pb.RevokeBotSecretRequest(bot_id=bot_id))
            assert (await refusal(exchange, pb.ExchangeBotSecretRequest(secret=rotated.secret)))[
                1
            ] == "BOT_SECRET_INVALID"
            again = await stub.RotateBotSecret(pb.RotateBotSecretRequest(bot_id=bot_id))

            admin = platform.token("operator", roles=("admin",))
            async with client.channel(platform.target, admin) as operator:
                await pb_grpc.BotServiceStub(operator).DisableBot(
                    pb.DisableBotRequest(bot_id=bot_id, reason="abusive")
                )
            assert await refusal(exchange, pb.ExchangeBotSecretRequest(secret=again.secret)) == (
                grpc.StatusCode.PERMISSION_DENIED,
                "BOT_DISABLED",
            )
        seen = await stub.GetBots(pb.GetBotsRequest(bot_ids=[bot_id]))
        assert (seen.bots[0].disabled, seen.bots[0].has_secret) == (True, False)
        assert await refusal(stub.RevokeBotSecret, pb.RevokeBotSecretRequest(bot_id="x")) == (
            grpc.StatusCode.NOT_FOUND,
            "BOT_NOT_FOUND",
        )
