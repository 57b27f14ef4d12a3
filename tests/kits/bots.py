"""Bot accounts for tests: an owner's account made in the platform's own store, a bot
registered over gRPC, its secret exchanged for a bot token, what it accepts declared; and
the Python starter bot (examples/bots/parlor_bot.py) loaded as a module."""

from __future__ import annotations

import importlib.util
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlor.accounts import ExternalIdentity
from parlor.bots.v1 import bots_pb2 as bpb
from parlor.bots.v1 import bots_pb2_grpc as bpb_grpc
from parlor.kit import client

STARTER_BOT = Path(__file__).parents[2] / "examples" / "bots" / "parlor_bot.py"


def starter_bot() -> Any:
    """A fresh module of the Python starter bot (its ``play``), as its users run it."""
    spec = importlib.util.spec_from_file_location("parlor_bot", STARTER_BOT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Registered:
    bot_id: str
    handle: str
    secret: str
    token: str
    owner: str


def fresh_handle(prefix: str = "bt") -> str:
    """A handle no other test holds (letters only after the prefix: no look-alikes of
    digits to collide on)."""
    return prefix + secrets.token_hex(5).translate(str.maketrans("0123456789", "ghjkmnpqrs"))


async def new_owner(platform: Any) -> str:
    (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
    who = ExternalIdentity("https://idp.example", "owner-" + secrets.token_hex(8))
    return str((await component.extra["accounts"].create("Owner", who)).player_id)


async def register_bot(
    platform: Any,
    owner: str | None = None,
    game_types: tuple[str, ...] = ("connect4x4",),
    max_games: int = 4,
    **accepts: Any,
) -> Registered:
    """A bot of ``owner`` (a new account if None) that declared ``game_types``."""
    owner = owner or await new_owner(platform)
    handle = fresh_handle()
    async with client.channel(platform.target, platform.token(owner)) as mine:
        made = await bpb_grpc.BotServiceStub(mine).RegisterBot(
            bpb.RegisterBotRequest(handle=handle, description="a test's bot")
        )
    async with client.channel(platform.target, None) as anonymous:
        issued = await bpb_grpc.BotServiceStub(anonymous).ExchangeBotSecret(
            bpb.ExchangeBotSecretRequest(secret=made.secret)
        )
    async with client.channel(platform.target, issued.access_token) as as_bot:
        await bpb_grpc.BotServiceStub(as_bot).DeclareAccepts(
            bpb.DeclareAcceptsRequest(
                accepts=bpb.Accepts(game_types=list(game_types), max_games=max_games, **accepts)
            )
        )
    return Registered(issued.bot_id, handle, made.secret, issued.access_token, owner)


async def leave_pool(
    platform: Any, bot: Registered, game_types: tuple[str, ...] = ("connect4x4",)
) -> None:
    """The bot declares again without ``matchmaking``: the matchmaker offers it no more
    (a test's bots leave the shared database's pool when the test is done with them)."""
    async with client.channel(platform.target, bot.token) as as_bot:
        await bpb_grpc.BotServiceStub(as_bot).DeclareAccepts(
            bpb.DeclareAcceptsRequest(accepts=bpb.Accepts(game_types=list(game_types), max_games=1))
        )


async def leave_pool_with_secret(
    platform: Any, secret: str, game_types: tuple[str, ...] = ("connect4x4",)
) -> None:
    """``leave_pool`` for a bot a program ran (its secret: the test holds no token of it)."""
    async with client.channel(platform.target, None) as anonymous:
        issued = await bpb_grpc.BotServiceStub(anonymous).ExchangeBotSecret(
            bpb.ExchangeBotSecretRequest(secret=secret)
        )
    bot = Registered(issued.bot_id, "", secret, issued.access_token, "")
    await leave_pool(platform, bot, game_types)
