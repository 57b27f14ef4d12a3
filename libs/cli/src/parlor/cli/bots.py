"""``parlor bot``: register a bot of your account, get its token, rotate or revoke its
secret (docs/bots.md). Registering and revoking call as your account (`parlor login`, or
--token); ``parlor bot token`` calls with the bot's secret alone (PARLOR_BOT_SECRET)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from parlor.cli.session import Session

bot = typer.Typer(help="Bots of your account: register, token, rotate, revoke.")

Target = Annotated[
    str | None,
    typer.Option("--target", help="host:port of the platform (env PARLOR_TARGET)"),
]
Token = Annotated[
    str | None,
    typer.Option("--token", help="your account's token (env PARLOR_TOKEN; else `parlor login`)"),
]


def _target(target: str | None) -> str:
    from parlor.client import DEFAULT_TARGET  # gRPC is loaded when a command runs, not for help

    return target or os.environ.get("PARLOR_TARGET") or DEFAULT_TARGET


def _account(target: str | None, token: str | None) -> Session:
    from parlor.cli import session as sessions
    from parlor.cli.main import fail
    from parlor.kit.settings import SettingsError

    where = _target(target)
    try:
        who = token or os.environ.get("PARLOR_TOKEN") or sessions.account_token(where)
    except SettingsError as exc:
        raise fail(str(exc)) from None
    if not who:
        raise fail("a bot is registered by an account: `parlor login` first (or --token)")
    return sessions.Session(where, who)


def _request(name: str, **fields: str) -> Any:
    from parlor.bots.v1 import bots_pb2

    return getattr(bots_pb2, name)(**fields)


def _call(where: Session | str, name: str, request: Any) -> Any:
    from parlor.bots.v1 import bots_pb2_grpc  # generated code: loaded when a command runs
    from parlor.cli.main import run
    from parlor.client import ParlorClient

    async def calls() -> Any:
        target, token = (where, None) if isinstance(where, str) else (where.target, where.token)
        async with ParlorClient(target, token) as parlor:
            stub = bots_pb2_grpc.BotServiceStub(parlor.channel)
            return await parlor.call(getattr(stub, name), request, idempotent=False)

    return run(calls())


@bot.command()
def register(
    handle: Annotated[str, typer.Argument(help="the bot's handle (unique, as a person's)")],
    description: Annotated[str, typer.Option("--description", "-d")] = "",
    target: Target = None,
    token: Token = None,
) -> None:
    """Register a bot you own; prints its id and its secret, shown this once."""
    made = _call(
        _account(target, token),
        "RegisterBot",
        _request("RegisterBotRequest", handle=handle, description=description),
    )
    print(f"bot:    {made.bot.bot_id} ({made.bot.handle})")
    print(f"secret: {made.secret}")
    print("keep the secret as a password (PARLOR_BOT_SECRET); it is not shown again")


@bot.command("token")
def token_(target: Target = None) -> None:
    """The bot's access token for its secret (env PARLOR_BOT_SECRET), on standard output."""
    from parlor.cli.main import fail

    secret = os.environ.get("PARLOR_BOT_SECRET", "")
    if not secret:
        raise fail("set PARLOR_BOT_SECRET to the bot's secret")
    issued = _call(
        _target(target), "ExchangeBotSecret", _request("ExchangeBotSecretRequest", secret=secret)
    )
    print(issued.access_token)


@bot.command()
def rotate(
    bot_id: Annotated[str, typer.Argument(help="the bot's id (botacct-...)")],
    target: Target = None,
    token: Token = None,
) -> None:
    """A new secret for your bot (the old one is refused from now on); shown this once."""
    rotated = _call(
        _account(target, token),
        "RotateBotSecret",
        _request("RotateBotSecretRequest", bot_id=bot_id),
    )
    print(f"secret: {rotated.secret}")


@bot.command()
def revoke(
    bot_id: Annotated[str, typer.Argument(help="the bot's id (botacct-...)")],
    target: Target = None,
    token: Token = None,
) -> None:
    """Revoke your bot's secret: no new token for it until `parlor bot rotate`."""
    _call(
        _account(target, token),
        "RevokeBotSecret",
        _request("RevokeBotSecretRequest", bot_id=bot_id),
    )
    print(f"revoked the secret of {bot_id}")
