"""The account calls of the clients, against the matchmaking component and a real OpenID
Connect provider process (tests/oidc): parlor-client's ``IdentityClient``, the provider's
login pages driven over HTTP as ``test_oidc_sign_in`` does."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

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
    async with start_platform("matchmaking") as running:
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
