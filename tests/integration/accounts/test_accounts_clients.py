"""The account calls of the clients, against the matchmaking component and a real OpenID
Connect provider process (tests/oidc): parlor-client's ``IdentityClient``, and the CLI's
``parlor login`` (the browser's redirect to a loopback port, RFC 8252), ``whoami`` and
``logout`` run as processes, the provider's login pages driven over HTTP as
``test_oidc_sign_in`` does."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from oidc_provider import (
    CLIENT_ID,
    CLIENT_SECRET,
    REDIRECT_URI,
    OidcProvider,
    client,
    free_port,
    play_user,
    running_provider,
    signing_keys,
)

from parlor.client import FailedPrecondition, ParlorClient, Unauthenticated

pytestmark = [pytest.mark.integration]

PROVIDER = "test"


@pytest.fixture(scope="module")
def loopback_port() -> int:
    """The port `parlor login --port` listens on (its redirect URI registered below)."""
    return free_port()


@pytest.fixture(scope="module")
def clients_idp(loopback_port: int) -> Iterator[tuple[OidcProvider, list[str]]]:
    redirects = [REDIRECT_URI, f"http://127.0.0.1:{loopback_port}/parlor/signed-in"]
    with running_provider(
        signing_keys("clients-key"), [{**client(), "redirect_uris": redirects}]
    ) as provider:
        yield provider, redirects


@pytest.fixture
async def platform(
    start_platform: Any,
    clients_idp: tuple[OidcProvider, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Any]:
    provider, redirects = clients_idp
    declared = {
        PROVIDER: {"issuer": provider.issuer, "client_id": CLIENT_ID, "redirect_uris": redirects}
    }
    monkeypatch.setenv("PARLOR_OIDC_PROVIDERS", json.dumps(declared))
    monkeypatch.setenv("PARLOR_OIDC_CLIENT_SECRETS", json.dumps({PROVIDER: CLIENT_SECRET}))
    for scope in ("ADDRESS", "NETWORK", "SITE"):  # every sign-in comes from 127.0.0.1
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    async with start_platform("matchmaking", "connect4x4") as running:
        yield running


async def test_parlor_client_signs_in_names_itself_renews_and_signs_out(
    platform: Any, unique: str
) -> None:
    async with ParlorClient(platform.target) as parlor:
        begun = await parlor.identity.begin_sign_in(PROVIDER, REDIRECT_URI)
        answer = await play_user(begun.authorization_url, f"pc-{unique}")
        assert answer["state"] == begun.state
        done = await parlor.identity.complete_sign_in(begun.state, answer["code"], answer["iss"])
        assert done.created
        assert parlor.token == done.access_token
        me = done.account.player_id

        handle = f"pc{unique[:10]}"
        assert (await parlor.identity.set_handle(handle.upper())).handle == handle
        assert (await parlor.identity.set_handle(handle)).handle == handle  # again: the same
        account = await parlor.identity.get_account()
        assert (account.player_id, [i.subject for i in account.identities]) == (
            me,
            [f"pc-{unique}"],
        )

        guest = await ParlorClient(platform.target).__aenter__()
        try:
            guest_id = await guest.sign_in_as_guest("Ada")
            with pytest.raises(FailedPrecondition) as not_an_account:
                await guest.identity.get_account()
            assert not_an_account.value.reason == "NOT_AN_ACCOUNT"
            # handles for showing players: the account's, none for a guest or a bot
            assert await guest.identity.handles([me, guest_id, "bot:random", me]) == {me: handle}
            players = await guest.identity.get_players([me, guest_id])
            assert [(p.player_id, p.handle) for p in players] == [(me, handle), (guest_id, "")]
        finally:
            await guest.close()

        renewed = await parlor.identity.renew_session(done.refresh_token)
        assert parlor.token == renewed.access_token
        assert renewed.refresh_token != done.refresh_token
        assert (await parlor.identity.get_account()).player_id == me

        await parlor.identity.sign_out(renewed.refresh_token)
        await parlor.identity.sign_out(renewed.refresh_token)  # twice is fine
        with pytest.raises(Unauthenticated) as revoked:
            await parlor.identity.renew_session(renewed.refresh_token)
        assert revoked.value.reason == "REFRESH_TOKEN_REVOKED"


async def cli(config: Path, *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "parlor.cli",
        *args,
        env={**os.environ, "PARLOR_CONFIG_DIR": str(config), "PARLOR_TOKEN": ""},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_parlor_login_whoami_and_logout(
    platform: Any, unique: str, loopback_port: int, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    where = ["--target", platform.target]
    # a loopback port whose redirect URI the platform does not take: said so, with the way out
    code, _, err = await cli(config, "login", "-p", PROVIDER, "--port", str(free_port()), *where)
    assert code == 1
    assert "redirect_uris" in err
    assert "--port" in err
    assert not (config / "credentials.json").exists()
    login = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "parlor.cli",
        *["login", "--provider", PROVIDER, "--port", str(loopback_port), "--no-browser", *where],
        env={**os.environ, "PARLOR_CONFIG_DIR": str(config)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert login.stderr is not None
    assert login.stdout is not None
    url = ""
    while not url.startswith("http"):  # the provider's URL, on stderr
        line = await asyncio.wait_for(login.stderr.readline(), 60)
        assert line, "parlor login ended before it showed the sign-in address"
        url = line.decode().strip()
    callback = f"http://127.0.0.1:{loopback_port}/parlor/signed-in"
    answer = await play_user(url, f"cli-{unique}", f"cli{unique[:8]}", redirect_uri=callback)

    async with httpx.AsyncClient(timeout=30) as browser:
        # another state (a forged or someone else's answer): refused, and the CLI waits on
        forged = await browser.get(callback, params={**answer, "state": "forged"})
        assert forged.status_code == 400
        assert "STATE_MISMATCH" in forged.text
        elsewhere = await browser.get(f"http://127.0.0.1:{loopback_port}/other")
        assert elsewhere.status_code == 404
        back = await browser.get(callback, params=answer)
        assert back.status_code == 200, back.text
    out, err = await asyncio.wait_for(login.communicate(), 60)
    assert login.returncode == 0, err.decode()
    assert f"as cli{unique[:8]}" in out.decode()

    # the tokens, readable by the user alone
    kept = config / "credentials.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    session = json.loads(kept.read_text())[platform.target]
    refresh = session["refresh_token"]

    code, shown, _ = await cli(config, "whoami", *where)
    assert code == 0
    assert session["player_id"] in shown
    assert f"cli{unique[:8]}" in shown
    assert f"cli-{unique}" in shown  # the linked identity's subject

    # an expired access token is renewed with the refresh token, which rotates in the file
    session["access_token"] = "expired.token.here"
    kept.write_text(json.dumps({platform.target: session}))
    os.chmod(kept, 0o600)
    code, shown, err = await cli(config, "whoami", *where)
    assert code == 0, err
    assert session["player_id"] in shown
    rotated = json.loads(kept.read_text())[platform.target]
    assert rotated["refresh_token"] != refresh
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600

    # the account's games list it by handle, not by player id
    async with ParlorClient(platform.target, rotated["access_token"]) as parlor:
        await parlor.connect4x4.create_game([session["player_id"], "bot:random"])
    code, shown, err = await cli(config, "games", *where)
    assert code == 0, err
    assert f"cli{unique[:8]}" in shown
    assert session["player_id"] not in shown

    code, shown, _ = await cli(config, "logout", *where)
    assert code == 0
    assert "signed out" in shown
    assert platform.target not in json.loads(kept.read_text())
    async with ParlorClient(platform.target) as parlor:
        with pytest.raises(Unauthenticated) as revoked:
            await parlor.identity.renew_session(rotated["refresh_token"])
        assert revoked.value.reason == "REFRESH_TOKEN_REVOKED"

    # signed out, the CLI is a guest again
    code, _, err = await cli(config, "whoami", *where)
    assert code == 2
    assert "not signed in" in err
    code, shown, err = await cli(config, "token", *where)
    assert code == 0
    assert "guest-" in err
