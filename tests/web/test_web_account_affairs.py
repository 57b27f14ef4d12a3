"""The account page's affairs on the web: a guest's games claimed after signing in through a
real OpenID Connect provider process (test_web_sign_in's fixtures), the sessions and signing
out everywhere, in headless Chromium; and built-in accounts through the bridge's
``/auth/password`` (PARLOR_PASSWORD_ACCOUNTS on), over HTTP and in Chromium, erasure
included."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from test_browser import browser, run_script
from test_web_sign_in import bridge_port, web, web_idp

from parlor.webgateway.signin import SESSION_COOKIE

WRONG = "x"  # a password no account has (kept out of a JSON literal: the trust scan)
SHORT = "short"  # a password too short to sign up with

pytestmark = [pytest.mark.integration]
__all__ = ["bridge_port", "web", "web_idp"]  # test_web_sign_in's fixtures, used here

PASSWORD = "correct horse battery"


@pytest.fixture
async def password_web(start_web: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    monkeypatch.setenv("PARLOR_PASSWORD_ACCOUNTS", "true")
    monkeypatch.setenv("PARLOR_WEB_PASSWORD_ACCOUNTS", "true")
    for scope in ("ADDRESS", "NETWORK", "SITE"):  # every call comes from 127.0.0.1
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    async with start_web("matchmaking", "connect4x4") as running:
        yield running


@pytest.mark.slow
async def test_in_chromium_a_guest_signs_in_claims_its_game_and_signs_out_everywhere(
    web: Any,
) -> None:
    browser()  # skipped (or failed in CI) without chromium, node or the built client
    report = await run_script("claimguest.mjs", web, LOGIN=f"claim-{secrets.token_hex(4)}")
    assert report["guestId"].startswith("guest-")
    assert report["accountId"].startswith("acct-")
    assert report["guestId"] in report["offered"]
    assert report["claimed"] == report["guestId"]
    assert report["guestId"] in report["claimText"]
    assert report["refusedReason"] == "GUEST_CLAIMED"
    assert report["listedInLobby"] is True
    assert len(report["sessions"]) == 1
    # signed out everywhere: the bridge's session is gone and the page is a guest's
    assert report["renewAfter"]["status"] == 401
    assert report["renewAfter"]["reason"] in ("NOT_SIGNED_IN", "REFRESH_TOKEN_REVOKED")
    assert report["accountId"] not in report["localStorageAfter"]


async def test_the_password_route_is_json_only_from_here_and_keeps_the_token_in_a_cookie(
    password_web: Any, unique: str
) -> None:
    route = f"{password_web.url}/auth/password"
    handle = f"wp{unique[:12]}"
    async with httpx.AsyncClient(timeout=60) as user:
        offered = await user.get(f"{password_web.url}/auth/providers")
        assert offered.json() == {"providers": [], "passwords": True}
        form = await user.post(route, data={"handle": handle, "password": PASSWORD})
        assert (form.status_code, form.json()["reason"]) == (415, "NOT_JSON")
        elsewhere = await user.post(
            route,
            json={"handle": handle, "password": PASSWORD, "signUp": True},
            headers={"sec-fetch-site": "cross-site"},
        )
        assert (elsewhere.status_code, elsewhere.json()["reason"]) == (
            403,
            "SIGN_IN_FROM_ELSEWHERE",
        )
        huge = await user.post(route, json={"handle": handle, "password": WRONG * 5000})
        assert (huge.status_code, huge.json()["reason"]) == (413, "TOO_LARGE")
        odd = await user.post(route, json={"handle": 3, "password": PASSWORD})
        assert (odd.status_code, odd.json()["reason"]) == (400, "BAD_JSON")
        short = await user.post(route, json={"handle": handle, "password": SHORT, "signUp": True})
        assert (short.status_code, short.json()["reason"]) == (400, "PASSWORD_TOO_SHORT")

        made = await user.post(route, json={"handle": handle, "password": PASSWORD, "signUp": True})
        assert made.status_code == 200, made.text
        assert set(made.json()) == {"accessToken", "accessExpiresAt", "refreshExpiresAt", "created"}
        assert made.json()["created"] is True
        kept = [c for c in made.headers.get_list("set-cookie") if c.startswith(SESSION_COOKIE)]
        assert len(kept) == 1
        assert "httponly" in kept[0].lower()
        assert "samesite=strict" in kept[0].lower()
        assert user.cookies[SESSION_COOKIE] not in made.text
        # the cookie renews as a provider's sign-in's does
        renewed = await user.post(f"{password_web.url}/auth/session", json={})
        assert renewed.status_code == 200, renewed.text

        wrong = await user.post(route, json={"handle": handle, "password": WRONG * 12})
        assert (wrong.status_code, wrong.json()["reason"]) == (401, "SIGN_IN_FAILED")
        nobody = await user.post(route, json={"handle": f"n{handle}", "password": PASSWORD})
        assert (nobody.status_code, nobody.json()["reason"]) == (401, "SIGN_IN_FAILED")
        assert wrong.json()["message"] == nobody.json()["message"]
        back = await user.post(route, json={"handle": handle.upper(), "password": PASSWORD})
        assert back.status_code == 200, back.text
        assert back.json()["created"] is False


async def test_the_password_route_is_refused_when_the_site_offers_none(web: Any) -> None:
    async with httpx.AsyncClient(timeout=30) as user:
        off = await user.post(f"{web.url}/auth/password", json={"handle": "ada", "password": WRONG})
        assert (off.status_code, off.json()["reason"]) == (412, "PASSWORD_ACCOUNTS_DISABLED")


@pytest.mark.slow
async def test_in_chromium_a_password_account_signs_up_in_and_is_erased(
    password_web: Any, unique: str
) -> None:
    browser()
    handle = f"wb{unique[:12]}"
    report = await run_script("password.mjs", password_web, HANDLE=handle, PASSWORD=PASSWORD)
    assert report["signedUp"] == handle
    session = report["sessionCookie"]
    assert session["httpOnly"]
    assert session["sameSite"] == "Strict"
    assert session["value"] not in report["storage"]
    assert PASSWORD not in report["storage"]
    assert SESSION_COOKIE not in report["documentCookie"]
    assert "SIGN_IN_FAILED" in report["wrongPassword"]
    assert report["signedIn"] == handle
    assert len(report["sessions"]) == 1  # signing out ended the first
    assert "web" in report["sessions"][0]
    assert report["stillThere"] == handle
    assert "SIGN_IN_FAILED" in report["afterErasure"]
