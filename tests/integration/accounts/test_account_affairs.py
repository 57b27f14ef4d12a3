"""The clients of an account's own affairs (docs/accounts.md, "Clients"), against the
matchmaking and Connect 4x4 components with built-in accounts on
(``PARLOR_PASSWORD_ACCOUNTS``): parlor-client's password sign-up and sign-in, guest claim,
claimed guest's token, sessions, sign-out everywhere and erasure; and the CLI's
``parlor login --password``, ``sessions``, ``claim-guest``, ``logout --everywhere`` and
``account erase`` run as processes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from parlor.cli.session import claims
from parlor.client import FailedPrecondition, ParlorClient, ParlorError, Unauthenticated

pytestmark = [pytest.mark.integration]

PASSWORD = "correct horse battery"


@pytest.fixture
async def platform(start_platform: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    monkeypatch.setenv("PARLOR_PASSWORD_ACCOUNTS", "true")
    for scope in ("ADDRESS", "NETWORK", "SITE"):  # every call comes from 127.0.0.1
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    async with start_platform("matchmaking", "connect4x4") as running:
        yield running


async def refused(call: Any) -> tuple[str, str]:
    try:
        await call
    except ParlorError as exc:
        return type(exc).__name__, exc.reason
    raise AssertionError("not refused")


async def test_parlor_client_claims_lists_signs_out_everywhere_and_erases(
    platform: Any, unique: str
) -> None:
    handle = f"pa{unique[:12]}"
    async with (
        ParlorClient(platform.target) as guest,
        ParlorClient(platform.target) as phone,
        ParlorClient(platform.target) as laptop,
    ):
        guest_id = await guest.sign_in_as_guest("Ada")
        game = await guest.connect4x4.create_game([guest_id, "bot:random"])

        assert await refused(phone.identity.sign_up_with_password(handle, "short")) == (
            "InvalidArgument",
            "PASSWORD_TOO_SHORT",
        )
        made = await phone.identity.sign_up_with_password(handle, PASSWORD, "Ada", "phone")
        assert made.created
        assert phone.token == made.access_token
        me = made.account.player_id
        assert made.account.handle == handle
        assert await refused(laptop.identity.sign_in_with_password(handle, "wrong password")) == (
            "Unauthenticated",
            "SIGN_IN_FAILED",
        )
        again = await laptop.identity.sign_in_with_password(handle.upper(), PASSWORD, "laptop")
        assert not again.created
        assert again.account.player_id == me
        assert laptop.token == again.access_token

        # sessions: both, newest first, never their tokens
        listed = await phone.identity.list_sessions()
        assert [s.client for s in listed] == ["laptop", "phone"]
        assert all(s.session_id not in (made.refresh_token, again.refresh_token) for s in listed)
        assert await refused(guest.identity.list_sessions()) == (
            "FailedPrecondition",
            "NOT_AN_ACCOUNT",
        )

        # the guest's game becomes the account's; once, ever
        claimed = await phone.identity.claim_guest(guest.token or "")
        assert claimed.guest_id == guest_id
        assert list(claimed.account.guest_ids) == [guest_id]
        assert await refused(laptop.identity.claim_guest(guest.token or "")) == (
            "AlreadyExists",
            "GUEST_CLAIMED",
        )
        assert await refused(phone.identity.claim_guest(phone.token or "")) == (
            "FailedPrecondition",
            "NOT_A_GUEST",
        )
        mine = await phone.connect4x4.list_games(me)
        assert game.game_id in [g.game_id for g in mine]
        seat_token = await phone.identity.issue_claimed_guest_token(guest_id)
        assert claims(seat_token.token).player_id == guest_id
        assert await refused(
            phone.identity.issue_claimed_guest_token("guest-0123456789abcdef")
        ) == (
            "PermissionDenied",
            "NOT_YOUR_GUEST",
        )

        # sign out everywhere: neither refresh token renews any more
        assert await laptop.identity.sign_out_everywhere() == 2
        assert await phone.identity.list_sessions() == []
        for spent in (made.refresh_token, again.refresh_token):
            with pytest.raises(Unauthenticated) as revoked:
                await phone.identity.renew_session(spent)
            assert revoked.value.reason == "REFRESH_TOKEN_REVOKED"

        # erasure: the handle is gone, and so is the password
        await phone.identity.erase_account()
        assert await guest.identity.handles([me]) == {}
        with pytest.raises(FailedPrecondition) as twice:
            await phone.identity.erase_account()
        assert twice.value.reason == "ACCOUNT_ERASED"
        with pytest.raises(Unauthenticated) as gone:
            await laptop.identity.sign_in_with_password(handle, PASSWORD)
        assert gone.value.reason == "SIGN_IN_FAILED"


async def parlor(
    config: Path, *args: str, stdin: str = "", token: str = ""
) -> tuple[int, str, str]:
    """The CLI as a process, with no terminal: stdin is a pipe holding ``stdin``."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "parlor.cli",
        *args,
        env={**os.environ, "PARLOR_CONFIG_DIR": str(config), "PARLOR_TOKEN": token},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # no controlling terminal either
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_the_cli_signs_up_claims_its_guest_lists_sessions_and_erases(
    platform: Any, unique: str, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    where = ["--target", platform.target]
    handle = f"cl{unique[:12]}"

    # the guest the CLI played as (`export PARLOR_TOKEN=$(parlor token)`), with a game
    code, guest_token, _ = await parlor(config, "token", *where)
    assert code == 0
    guest_token = guest_token.strip()
    guest_id = claims(guest_token).player_id
    async with ParlorClient(platform.target, guest_token) as guest:
        game = await guest.connect4x4.create_game([guest_id, "bot:random"])

    # the password is never an argument: --password is a flag
    code, _, err = await parlor(config, "login", "--password", PASSWORD, *where)
    assert code == 2
    code, out, err = await parlor(
        config, "login", "--password", "--sign-up", "--handle", handle, *where, stdin=PASSWORD
    )
    assert code == 0, err
    assert f"signed up at {platform.target} as {handle}" in out
    assert PASSWORD not in out + err
    kept = json.loads((config / "credentials.json").read_text())[platform.target]
    assert kept["provider"] == "password"
    assert PASSWORD not in (config / "credentials.json").read_text()

    code, out, err = await parlor(
        config, "login", "--password", *where, stdin=f"{handle}\nwrong one\n"
    )
    assert code == 1
    assert "UNAUTHENTICATED" in err
    code, out, err = await parlor(
        config, "login", "--password", "--handle", handle, *where, stdin=PASSWORD + "\n"
    )
    assert code == 0, err
    assert f"signed in at {platform.target} as {handle}" in out

    code, out, err = await parlor(config, "sessions", *where)
    assert code == 0, err
    assert out.count("parlor CLI") == 2
    assert "2 open session(s)" in out

    # claim-guest: the guest's token from PARLOR_TOKEN; once, ever
    code, out, err = await parlor(config, "claim-guest", *where, token=guest_token)
    assert code == 0, err
    assert f"claimed {guest_id}" in out
    assert handle in out
    code, out, err = await parlor(config, "claim-guest", *where, stdin=guest_token)
    assert code == 1
    assert "ALREADY_EXISTS" in err
    code, out, err = await parlor(config, "claim-guest", *where, token="not a token")
    assert code == 2
    code, out, err = await parlor(config, "games", *where)
    assert code == 0, err
    assert game.game_id in out

    # logout --everywhere: both sessions end, the stored one is forgotten
    refresh = json.loads((config / "credentials.json").read_text())[platform.target][
        "refresh_token"
    ]
    code, out, err = await parlor(config, "logout", "--everywhere", *where)
    assert code == 0, err
    assert "2 session(s) ended" in out
    assert platform.target not in json.loads((config / "credentials.json").read_text())
    async with ParlorClient(platform.target) as anyone:
        with pytest.raises(Unauthenticated) as revoked:
            await anyone.identity.renew_session(refresh)
        assert revoked.value.reason == "REFRESH_TOKEN_REVOKED"
    code, _, err = await parlor(config, "sessions", *where)
    assert code == 2
    assert "not signed in" in err

    # account erase: asks for the handle; a wrong answer erases nothing
    code, out, err = await parlor(
        config, "login", "--password", "--handle", handle, *where, stdin=PASSWORD
    )
    assert code == 0, err
    code, out, err = await parlor(config, "account", "erase", *where, stdin="yes\n")
    assert code == 1
    assert "not erased" in err
    code, out, err = await parlor(config, "account", "erase", *where, stdin=f"{handle}\n")
    assert code == 0, err
    assert "erased the account" in out
    code, _, err = await parlor(config, "whoami", *where)
    assert code == 2
    code, _, err = await parlor(
        config, "login", "--password", "--handle", handle, *where, stdin=PASSWORD
    )
    assert code == 1
    assert "UNAUTHENTICATED" in err
