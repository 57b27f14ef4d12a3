"""``parlor bot register|token|rotate|revoke`` against the matchmaking component on
PostgreSQL: an account registers a bot, the secret printed becomes a bot token, and a
revoked secret is refused with its reason."""

from __future__ import annotations

import asyncio
import re
import secrets
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from parlor.accounts import ExternalIdentity
from parlor.cli.main import app
from parlor.kit.auth import verify_token

pytestmark = [pytest.mark.integration]


async def cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)


async def test_register_token_rotate_and_revoke_from_the_terminal(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    async with start_platform("matchmaking") as platform:
        (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
        owner = await component.extra["accounts"].create(
            "Owner", ExternalIdentity("https://idp.example", secrets.token_hex(8))
        )
        where = ["--target", platform.target]
        mine = ["--token", platform.token(owner.player_id)]
        name = "cl" + secrets.token_hex(5).translate(str.maketrans("0123456789", "ghjkmnpqrs"))
        made = await cli("bot", "register", name, "-d", "from the CLI", *where, *mine)
        assert made.exit_code == 0, made.output
        bot_id = re.search(r"bot:\s+(botacct-[0-9a-f]{32})", made.output)
        secret = re.search(r"secret:\s+(\S+)", made.output)
        assert bot_id is not None
        assert secret is not None

        issued = await cli("bot", "token", *where, env={"PARLOR_BOT_SECRET": secret[1]})
        assert issued.exit_code == 0, issued.output
        identity = verify_token(platform.auth, issued.output.strip())
        assert (identity.player_id, identity.roles) == (bot_id[1], ("bot",))

        rotated = await cli("bot", "rotate", bot_id[1], *where, *mine)
        assert rotated.exit_code == 0, rotated.output
        new = re.search(r"secret:\s+(\S+)", rotated.output)
        assert new is not None
        old = await cli("bot", "token", *where, env={"PARLOR_BOT_SECRET": secret[1]})
        assert old.exit_code != 0
        assert "UNAUTHENTICATED: this bot secret is not valid" in old.output

        revoked = await cli("bot", "revoke", bot_id[1], *where, *mine)
        assert revoked.exit_code == 0, revoked.output
        after = await cli("bot", "token", *where, env={"PARLOR_BOT_SECRET": new[1]})
        assert after.exit_code != 0
        assert "UNAUTHENTICATED: this bot secret is not valid" in after.output

        # a guest registers no bot
        guest = ["--token", platform.token("guest-0011223344556677")]
        refused = await cli("bot", "register", name + "x", *where, *guest)
        assert refused.exit_code != 0
        assert "FAILED_PRECONDITION" in refused.output
