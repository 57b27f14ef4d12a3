"""Signing in on the web: the bridge's /auth/ routes in front of the identity service, through
a real OpenID Connect provider process (tests/oidc, npm oidc-provider).

Over HTTP (httpx, the user's part at the provider scripted as tests/integration/accounts does)
every refusal of the callback is checked with its reason; in headless Chromium a user signs in
through the provider's own pages, chooses a handle, sees it, and signs out.
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from test_browser import browser, run_script

from parlor.webgateway.component import bind
from parlor.webgateway.signin import SESSION_COOKIE, STATE_COOKIE

pytestmark = [pytest.mark.integration]

_path = Path(__file__).resolve().parents[1] / "integration" / "accounts" / "oidc_provider.py"
_spec = importlib.util.spec_from_file_location("parlor_tests_oidc_provider_web", _path)
assert _spec is not None
assert _spec.loader is not None
idp = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = idp
_spec.loader.exec_module(idp)

PROVIDER = "test"


@pytest.fixture(scope="module")
def bridge_port() -> int:
    return int(idp.free_port())


@pytest.fixture(scope="module")
def web_idp(bridge_port: int) -> Iterator[Any]:
    """The provider, knowing the bridge's callback (its port chosen first)."""
    callback = f"http://127.0.0.1:{bridge_port}/auth/callback"
    registered = {**idp.client(), "redirect_uris": [callback]}
    with idp.running_provider(idp.signing_keys("web-key"), [registered]) as provider:
        yield provider


@pytest.fixture
async def web(
    start_web: Any, web_idp: Any, bridge_port: int, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Any]:
    callback = f"http://127.0.0.1:{bridge_port}/auth/callback"
    declared = {
        PROVIDER: {
            "issuer": web_idp.issuer,
            "client_id": idp.CLIENT_ID,
            "redirect_uris": [callback],
        }
    }
    monkeypatch.setenv("PARLOR_OIDC_PROVIDERS", json.dumps(declared))
    monkeypatch.setenv("PARLOR_OIDC_CLIENT_SECRETS", json.dumps({PROVIDER: idp.CLIENT_SECRET}))
    monkeypatch.setenv("PARLOR_WEB_SIGN_IN_PROVIDERS", PROVIDER)
    monkeypatch.setenv("PARLOR_WEB_SIGN_IN_REDIRECT_URI", callback)
    for scope in ("ADDRESS", "NETWORK", "SITE"):  # many sign-ins from 127.0.0.1
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    # a game to show the player in by handle, and the leaderboards' service
    served = ("matchmaking", "connect4x4", "scoring")
    async with start_web(*served, sock=bind("127.0.0.1", bridge_port)) as running:
        yield running


def cookie(response: httpx.Response, name: str) -> str:
    """The Set-Cookie header of ``name``, whole (its attributes to check)."""
    found = [c for c in response.headers.get_list("set-cookie") if c.startswith(f"{name}=")]
    assert len(found) == 1, response.headers.get_list("set-cookie")
    return found[0]


async def begin(browser_: httpx.AsyncClient, url: str) -> str:
    """Sign-in begun at the bridge: the provider's authorisation URL it redirects to."""
    begun = await browser_.get(f"{url}/auth/sign-in", params={"provider": PROVIDER})
    assert begun.status_code == 303, begun.text
    bound = cookie(begun, STATE_COOKIE).lower()
    assert "httponly" in bound
    assert "samesite=lax" in bound
    assert "path=/auth/callback" in bound
    return str(begun.headers["location"])


def refused(response: httpx.Response) -> str:
    """The reason a refusal page names."""
    assert response.status_code in (400, 401, 403, 404), response.text
    assert 'id="sign-in-refused"' in response.text
    return response.text.split('data-reason="', 1)[1].split('"', 1)[0]


async def test_the_callback_is_bound_to_the_browser_and_the_session_to_a_cookie(
    web: Any,
) -> None:
    login = f"web-{secrets.token_hex(4)}"
    callback = f"{web.url}/auth/callback"
    async with httpx.AsyncClient(timeout=30) as user, httpx.AsyncClient(timeout=30) as other:
        answer = await idp.play_user(await begin(user, web.url), login, redirect_uri=callback)

        # the provider's answer taken to another browser (no cookie): refused, nothing spent
        assert refused(await other.get(callback, params=answer)) == "SIGN_IN_NOT_STARTED"

        done = await user.get(callback, params=answer)
        assert done.status_code == 303, done.text
        assert done.headers["location"] == "/#/signed-in"
        session = cookie(done, SESSION_COOKIE).lower()
        assert "httponly" in session
        assert "samesite=strict" in session
        assert "path=/auth/" in session
        assert "max-age=0" in cookie(done, STATE_COOKIE).lower()  # the state is spent
        first_refresh = user.cookies[SESSION_COOKIE]

        # the same answer again: this browser has no sign-in in progress any more; sent with
        # the state's cookie forged back, the service knows the state was used
        assert refused(await user.get(callback, params=answer)) == "SIGN_IN_NOT_STARTED"
        forged = await other.get(
            callback, params=answer, headers={"cookie": f"{STATE_COOKIE}={answer['state']}"}
        )
        assert refused(forged) == "STATE_USED"

        # the page's access token: JSON only, the refresh token rotated in the cookie and
        # never in the answer
        assert (await user.post(f"{web.url}/auth/session", content="{}")).status_code == 415
        renewed = await user.post(f"{web.url}/auth/session", json={})
        assert renewed.status_code == 200, renewed.text
        body = renewed.json()
        assert set(body) == {"accessToken", "accessExpiresAt", "refreshExpiresAt"}
        assert user.cookies[SESSION_COOKIE] != first_refresh
        assert first_refresh not in renewed.text
        assert user.cookies[SESSION_COOKIE] not in renewed.text
        got = await user.post(
            f"{web.url}/api/parlor.identity.v1.IdentityService/GetAccount",
            json={},
            headers={"authorization": f"Bearer {body['accessToken']}"},
        )
        assert got.status_code == 200, got.text
        assert got.json()["account"]["identities"][0]["subject"] == login

        # signing out ends the session at the service and clears the cookie
        last_refresh = user.cookies[SESSION_COOKIE]
        out = await user.post(f"{web.url}/auth/sign-out", json={})
        assert out.status_code == 200
        assert "max-age=0" in cookie(out, SESSION_COOKIE).lower()
        again = await user.post(f"{web.url}/auth/session", json={})
        assert (again.status_code, again.json()["reason"]) == (401, "NOT_SIGNED_IN")
        stolen = await other.post(
            f"{web.url}/auth/session",
            json={},
            headers={"cookie": f"{SESSION_COOKIE}={last_refresh}"},
        )
        assert (stolen.status_code, stolen.json()["reason"]) == (401, "REFRESH_TOKEN_REVOKED")


async def test_a_tampered_state_a_provider_refusal_and_an_unknown_provider_are_refused(
    web: Any,
) -> None:
    callback = f"{web.url}/auth/callback"
    async with httpx.AsyncClient(timeout=30) as user:
        answer = await idp.play_user(
            await begin(user, web.url), f"web-{secrets.token_hex(4)}", redirect_uri=callback
        )
        tampered = {
            **answer,
            "state": answer["state"][:-1] + ("A" if answer["state"][-1] != "A" else "B"),
        }
        assert refused(await user.get(callback, params=tampered)) == "STATE_MISMATCH"
        # the cookie was spent by the attempt: the genuine answer must begin again
        assert refused(await user.get(callback, params=answer)) == "SIGN_IN_NOT_STARTED"

        await begin(user, web.url)
        denied = await user.get(
            callback, params={"error": "access_denied", "error_description": "user said no"}
        )
        assert refused(denied) == "PROVIDER_REFUSED"
        assert "user said no" in denied.text

        unknown = await user.get(f"{web.url}/auth/sign-in", params={"provider": "elsewhere"})
        assert refused(unknown) == "UNKNOWN_PROVIDER"
        offered = (await user.get(f"{web.url}/auth/providers")).json()
        assert offered == {"providers": [PROVIDER], "passwords": False}


@pytest.mark.slow
async def test_in_chromium_a_user_signs_in_at_the_provider_sets_a_handle_and_signs_out(
    web: Any, web_idp: Any
) -> None:
    browser()  # skipped (or failed in CI) without chromium, node or the built client
    handle = f"web{secrets.token_hex(4)}"
    report = await run_script(
        "signin.mjs", web, LOGIN=f"web-{secrets.token_hex(4)}", HANDLE=handle.upper()
    )
    assert report["signedIn"] is True
    assert report["handleShown"] == handle
    assert report["headerShown"] == handle
    assert report["afterReload"] == handle  # still signed in: the session survives a reload
    assert report["afterExpiry"] == handle  # an expired access token renewed from the cookie
    # shown by handle, not by player id, on the game's page and in the lobby's live games
    assert handle in report["seatsShown"]
    assert "acct-" not in report["seatsShown"]
    assert f"{handle} vs" in report["liveShown"]
    # the leaderboards page answers from the scoring service (nobody established yet)
    assert "No established players yet" in report["leaderboard"]
    # the refresh token only in an HttpOnly cookie: not in the page's storage nor its cookies
    session = report["sessionCookie"]
    assert session["httpOnly"]
    assert session["sameSite"] == "Strict"
    assert session["value"] not in report["localStorage"]
    assert SESSION_COOKIE not in report["documentCookie"]
    assert report["afterSignOut"] == {"guestForm": True, "sessionCookie": False}
    assert report["forgedCallback"] == "SIGN_IN_NOT_STARTED"
    # the user really was at the provider, on its own pages
    assert report["providerPages"] == ["login", "consent"]
    assert urlsplit(report["providerUrl"]).netloc == urlsplit(web_idp.issuer).netloc
