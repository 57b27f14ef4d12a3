"""Signing in through a real OpenID Connect provider (npm oidc-provider, a process of its
own on a loopback port), the user's part played over HTTP: discovery, the authorisation
code with PKCE, the code exchange, the ID token checked; each refusal with its reason.

The sign-ins and sessions are kept by the event store: every test runs on the in-memory
store and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import time
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

from parlor.core.errors import (
    InvalidArgument,
    ParlorError,
    PermissionDenied,
    Unauthenticated,
)
from parlor.eventstore import EventStore
from parlor.kit.auth import AuthSettings, generate_private_key, verify_token
from parlor.kit.status import status_code
from parlor.services.matchmaking.accounts import Accounts
from parlor.services.matchmaking.oidc import (
    JWKS_REFETCH_SECONDS,
    OidcSettings,
    Provider,
    ProviderConfig,
    Providers,
    provider_configs,
)
from parlor.services.matchmaking.signin import SignedIn, SignIns, sign_in_stream

AUTH = AuthSettings(private_key=generate_private_key())


@pytest.fixture(scope="module")
def keys() -> dict[str, Any]:
    return signing_keys("first-key")


@pytest.fixture(scope="module")
def idp(keys: dict[str, Any]) -> Iterator[OidcProvider]:
    with running_provider(keys, [client(), client("another-client")]) as provider:
        yield provider


def oidc_settings(issuer: str, client_id: str = CLIENT_ID) -> OidcSettings:
    declared = {"test": {"issuer": issuer, "client_id": client_id, "redirect_uris": [REDIRECT_URI]}}
    return OidcSettings(
        providers=json.dumps(declared), client_secrets=json.dumps({"test": CLIENT_SECRET})
    )


class Clock:
    """The time, moved on by ``offset`` seconds."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


@pytest.fixture
async def clock() -> Clock:
    return Clock()


@pytest.fixture
async def sign_ins(store: EventStore, idp: OidcProvider, clock: Clock) -> AsyncIterator[SignIns]:
    settings = oidc_settings(idp.issuer)
    providers = Providers(provider_configs(settings), clock=clock)
    try:
        yield SignIns(store, Accounts(store), providers, AUTH, settings, clock=clock)
    finally:
        await providers.close()


async def begin_and_play(
    sign_ins: SignIns, login: str, username: str | None = None
) -> tuple[str, str, str]:
    """A sign-in begun and played at the provider: the state, code and iss it sent back."""
    url, state, _ = await sign_ins.begin("test", REDIRECT_URI)
    answer = await play_user(url, login, username)
    assert answer["state"] == state
    return state, answer["code"], answer["iss"]


async def sign_in(sign_ins: SignIns, login: str, username: str | None = None) -> SignedIn:
    return await sign_ins.complete(*await begin_and_play(sign_ins, login, username))


def refused(error: pytest.ExceptionInfo[ParlorError], kind: type[ParlorError], reason: str) -> None:
    """The refusal is ``kind`` with ``reason``: over gRPC, ``kind``'s status code (the kit's
    interceptor maps it) with the reason in the ErrorInfo."""
    assert isinstance(error.value, kind), error.value
    assert status_code(error.value).name == kind.code
    assert error.value.reason == reason, error.value


class TestSignIn:
    async def test_a_first_sign_in_creates_the_account_and_the_next_signs_into_it(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        handle = f"ann{unique[:8]}"
        first = await sign_in(sign_ins, f"ann-{unique}", handle)
        assert first.created
        account = first.account
        assert account.player_id.startswith("acct-")
        assert unique not in account.player_id  # not derived from the provider's subject
        assert account.handle == handle  # proposed from preferred_username: free and valid
        assert [i.subject for i in account.identities] == [f"ann-{unique}"]
        caller = verify_token(AUTH, first.tokens.access_token)
        # the token names the player id alone: no handle flows into tickets and game seats
        assert (caller.player_id, caller.name) == (account.player_id, account.player_id)

        again = await sign_in(sign_ins, f"ann-{unique}", "someone-else")
        assert not again.created
        assert again.account.player_id == account.player_id
        assert again.tokens.refresh_token != first.tokens.refresh_token

    async def test_a_taken_or_invalid_preferred_username_leaves_the_handle_to_choose(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        handle = f"bo{unique[:8]}"
        await sign_in(sign_ins, f"bob-{unique}", handle)
        second = await sign_in(sign_ins, f"bob2-{unique}", handle.upper())
        assert second.created
        assert second.account.handle == ""
        third = await sign_in(sign_ins, f"adm-{unique}", "admin")
        assert third.account.handle == ""

    async def test_a_tampered_state_is_refused(self, sign_ins: SignIns, unique: str) -> None:
        state, code, iss = await begin_and_play(sign_ins, f"t-{unique}")
        with pytest.raises(ParlorError) as error:
            await sign_ins.complete(state[:-1] + ("A" if state[-1] != "A" else "B"), code, iss)
        refused(error, Unauthenticated, "STATE_UNKNOWN")

    async def test_a_replayed_state_is_refused(self, sign_ins: SignIns, unique: str) -> None:
        state, code, iss = await begin_and_play(sign_ins, f"r-{unique}")
        await sign_ins.complete(state, code, iss)
        with pytest.raises(ParlorError) as error:
            await sign_ins.complete(state, code, iss)
        refused(error, Unauthenticated, "STATE_USED")

    async def test_a_state_completed_at_once_on_two_replicas_signs_in_once(
        self, store: EventStore, sign_ins: SignIns, unique: str
    ) -> None:
        state, code, iss = await begin_and_play(sign_ins, f"two-{unique}")
        replica = SignIns(
            store, Accounts(store), sign_ins.providers, AUTH, sign_ins.settings, sign_ins.clock
        )
        results = await asyncio.gather(
            sign_ins.complete(state, code, iss),
            replica.complete(state, code, iss),
            return_exceptions=True,
        )
        won = [r for r in results if isinstance(r, SignedIn)]
        lost = [r for r in results if isinstance(r, ParlorError)]
        assert (len(won), len(lost)) == (1, 1), results
        assert lost[0].reason == "STATE_USED"

    async def test_a_sign_in_completed_late_is_refused(
        self, sign_ins: SignIns, clock: Clock, unique: str
    ) -> None:
        state, code, iss = await begin_and_play(sign_ins, f"late-{unique}")
        clock.offset = sign_ins.settings.sign_in_seconds + 1
        with pytest.raises(ParlorError) as error:
            await sign_ins.complete(state, code, iss)
        refused(error, Unauthenticated, "STATE_EXPIRED")

    async def test_a_reused_code_is_refused_by_the_provider(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        _, code, iss = await begin_and_play(sign_ins, f"c-{unique}")
        state, _, _ = await begin_and_play(sign_ins, f"c-{unique}")
        # the first sign-in's code, used with the second's state (its own PKCE verifier)
        with pytest.raises(ParlorError) as error:
            await sign_ins.complete(state, code, iss)
        refused(error, Unauthenticated, "CODE_REJECTED")

    async def test_a_used_code_cannot_be_used_again(self, sign_ins: SignIns, unique: str) -> None:
        state, code, iss = await begin_and_play(sign_ins, f"u-{unique}")
        await sign_ins.complete(state, code, iss)
        # replayed at the provider itself, with the verifier it was issued for
        begun = await sign_ins.store.read_stream(sign_in_stream(state))
        verifier = json.loads(begun[0].data)["code_verifier"]
        provider = sign_ins.providers.get("test")
        with pytest.raises(ParlorError) as error:
            await provider.exchange(code, verifier, REDIRECT_URI)
        refused(error, Unauthenticated, "CODE_REJECTED")

    async def test_an_answer_of_another_issuer_or_without_the_iss_sent_is_refused(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        for iss in ("https://another.example", ""):
            state, code, _ = await begin_and_play(sign_ins, f"mix-{unique}")
            with pytest.raises(ParlorError) as error:
                await sign_ins.complete(state, code, iss)
            refused(error, Unauthenticated, "ISSUER_MISMATCH")

    async def test_unknown_providers_and_redirect_uris_are_refused(self, sign_ins: SignIns) -> None:
        with pytest.raises(ParlorError) as error:
            await sign_ins.begin("nope", REDIRECT_URI)
        refused(error, InvalidArgument, "UNKNOWN_PROVIDER")
        with pytest.raises(ParlorError) as error:
            await sign_ins.begin("test", "https://evil.example/steal")
        refused(error, InvalidArgument, "REDIRECT_URI_NOT_ALLOWED")

    async def test_state_and_nonce_are_unguessable_and_pkce_is_sent(
        self, sign_ins: SignIns
    ) -> None:
        urls = [await sign_ins.begin("test", REDIRECT_URI) for _ in range(3)]
        states = {state for _, state, _ in urls}
        assert len(states) == 3
        assert all(len(s) >= 43 for s in states)  # 256 bits
        url = urls[0][0]
        assert "code_challenge_method=S256" in url
        assert "code_challenge=" in url
        assert "nonce=" in url


class TestSessions:
    async def test_a_refresh_token_is_rotated_on_use(self, sign_ins: SignIns, unique: str) -> None:
        first = (await sign_in(sign_ins, f"s-{unique}")).tokens
        second = await sign_ins.renew(first.refresh_token)
        assert second.refresh_token != first.refresh_token
        third = await sign_ins.renew(second.refresh_token)
        caller = verify_token(AUTH, third.access_token)
        assert caller.player_id.startswith("acct-")

    async def test_a_rotated_token_reused_revokes_the_family(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        first = (await sign_in(sign_ins, f"x-{unique}")).tokens
        second = await sign_ins.renew(first.refresh_token)
        with pytest.raises(ParlorError) as error:
            await sign_ins.renew(first.refresh_token)  # a copy of the old one comes back
        refused(error, Unauthenticated, "REFRESH_TOKEN_REUSED")
        with pytest.raises(ParlorError) as error:
            await sign_ins.renew(second.refresh_token)  # the player's newest is revoked too
        refused(error, Unauthenticated, "REFRESH_TOKEN_REVOKED")

    async def test_two_renewals_racing_with_one_token_revoke_the_family(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        tokens = (await sign_in(sign_ins, f"race-{unique}")).tokens
        results = await asyncio.gather(
            *(sign_ins.renew(tokens.refresh_token) for _ in range(2)), return_exceptions=True
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, ParlorError)]
        assert (len(won), len(lost)) == (1, 1), results
        assert lost[0].reason == "REFRESH_TOKEN_REUSED"
        with pytest.raises(ParlorError) as error:
            await sign_ins.renew(won[0].refresh_token)
        refused(error, Unauthenticated, "REFRESH_TOKEN_REVOKED")

    async def test_signing_out_revokes_the_session(self, sign_ins: SignIns, unique: str) -> None:
        tokens = (await sign_in(sign_ins, f"o-{unique}")).tokens
        other = (await sign_in(sign_ins, f"o-{unique}")).tokens  # another device
        await sign_ins.sign_out(tokens.refresh_token)
        await sign_ins.sign_out(tokens.refresh_token)  # twice is fine
        with pytest.raises(ParlorError) as error:
            await sign_ins.renew(tokens.refresh_token)
        refused(error, Unauthenticated, "REFRESH_TOKEN_REVOKED")
        assert (await sign_ins.renew(other.refresh_token)).access_token

    async def test_closing_the_account_revokes_every_session(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        one = await sign_in(sign_ins, f"z-{unique}")
        two = await sign_in(sign_ins, f"z-{unique}")
        await sign_ins.accounts.close(one.account.player_id, "asked")
        for tokens in (one.tokens, two.tokens):
            with pytest.raises(ParlorError) as error:
                await sign_ins.renew(tokens.refresh_token)
            refused(error, Unauthenticated, "ACCOUNT_CLOSED")
            with pytest.raises(ParlorError) as error:  # revoked now, and still says why
                await sign_ins.renew(tokens.refresh_token)
            refused(error, Unauthenticated, "ACCOUNT_CLOSED")
        with pytest.raises(ParlorError) as error:
            await sign_in(sign_ins, f"z-{unique}")
        refused(error, PermissionDenied, "ACCOUNT_CLOSED")

    @pytest.mark.parametrize(
        "token", ["", "nodot", "0" * 32 + ".secret", "g" * 32 + ".x", "a.b.c" * 80]
    )
    async def test_malformed_or_unknown_refresh_tokens_are_refused(
        self, sign_ins: SignIns, token: str
    ) -> None:
        with pytest.raises(ParlorError) as error:
            await sign_ins.renew(token)
        refused(error, Unauthenticated, "REFRESH_TOKEN_INVALID")

    async def test_only_hashes_of_refresh_tokens_are_stored(
        self, sign_ins: SignIns, unique: str
    ) -> None:
        tokens = (await sign_in(sign_ins, f"h-{unique}")).tokens
        family, _, secret = tokens.refresh_token.partition(".")
        stored = await sign_ins.store.read_stream(f"accountsession-{family}")
        assert stored
        assert all(secret.encode() not in e.data for e in stored)


# -- the ID token's checks, on real ID tokens from real providers ------------------------------


async def id_token_of(provider: Provider, login: str) -> tuple[str, str]:
    """A real ID token from ``provider`` for ``login`` (the flow, not checked), and its nonce."""
    state, nonce, verifier = f"s{login}", f"n{login}", "v" * 50
    url = await provider.authorization_url(state, nonce, verifier, REDIRECT_URI)
    answer = await play_user(url, login)
    return await provider.exchange(answer["code"], verifier, REDIRECT_URI), nonce


@pytest.fixture
async def relying_party(idp: OidcProvider, clock: Clock) -> AsyncIterator[Providers]:
    providers = Providers(provider_configs(oidc_settings(idp.issuer)), clock=clock)
    try:
        yield providers
    finally:
        await providers.close()


def config_for(issuer: str, client_id: str = CLIENT_ID) -> ProviderConfig:
    return ProviderConfig("test", issuer, client_id, CLIENT_SECRET, (REDIRECT_URI,))


class TestIdToken:
    async def test_a_genuine_token_passes(self, relying_party: Providers, unique: str) -> None:
        provider = relying_party.get("test")
        token, nonce = await id_token_of(provider, f"g-{unique}")
        claims = await provider.verify_id_token(token, nonce)
        assert claims["sub"] == f"g-{unique}"

    async def test_a_wrong_nonce_is_refused(self, relying_party: Providers, unique: str) -> None:
        provider = relying_party.get("test")
        token, _ = await id_token_of(provider, f"n-{unique}")
        with pytest.raises(ParlorError) as error:
            await provider.verify_id_token(token, "another-nonce")
        refused(error, Unauthenticated, "ID_TOKEN_NONCE_MISMATCH")

    async def test_a_token_for_another_client_is_refused(
        self, idp: OidcProvider, relying_party: Providers, unique: str
    ) -> None:
        other = Provider(config_for(idp.issuer, "another-client"), relying_party.http)
        token, nonce = await id_token_of(other, f"a-{unique}")
        with pytest.raises(ParlorError) as error:
            await relying_party.get("test").verify_id_token(token, nonce)
        refused(error, Unauthenticated, "ID_TOKEN_WRONG_AUDIENCE")

    async def test_an_expired_token_is_refused(
        self, relying_party: Providers, clock: Clock, unique: str
    ) -> None:
        provider = relying_party.get("test")
        token, nonce = await id_token_of(provider, f"e-{unique}")
        clock.offset = 600 + 61  # the provider's ID token lifetime and the leeway
        with pytest.raises(ParlorError) as error:
            await provider.verify_id_token(token, nonce)
        refused(error, Unauthenticated, "ID_TOKEN_EXPIRED")

    async def test_a_token_of_another_issuer_is_refused_even_with_the_same_keys(
        self, keys: dict[str, Any], relying_party: Providers, unique: str
    ) -> None:
        with running_provider(keys) as impostor:
            elsewhere = Provider(config_for(impostor.issuer), relying_party.http)
            token, nonce = await id_token_of(elsewhere, f"i-{unique}")
        with pytest.raises(ParlorError) as error:
            await relying_party.get("test").verify_id_token(token, nonce)
        refused(error, Unauthenticated, "ID_TOKEN_WRONG_ISSUER")

    async def test_a_token_signed_by_an_unknown_key_is_refused_and_refetches_are_bounded(
        self, relying_party: Providers, clock: Clock, unique: str
    ) -> None:
        provider = relying_party.get("test")
        genuine, nonce = await id_token_of(provider, f"k-{unique}")
        await provider.verify_id_token(genuine, nonce)
        with running_provider(signing_keys("stranger-key")) as stranger:
            other = Provider(config_for(stranger.issuer), relying_party.http)
            token, other_nonce = await id_token_of(other, f"k-{unique}")
        fetched = provider.jwks_fetches
        clock.offset += JWKS_REFETCH_SECONDS + 1
        for _ in range(5):
            with pytest.raises(ParlorError) as error:
                await provider.verify_id_token(token, other_nonce)
            refused(error, Unauthenticated, "ID_TOKEN_UNKNOWN_KEY")
        assert provider.jwks_fetches == fetched + 1  # one refetch, not one per token
        # ten at once, when a refetch is allowed again: still one
        clock.offset += JWKS_REFETCH_SECONDS + 1
        results = await asyncio.gather(
            *(provider.verify_id_token(token, other_nonce) for _ in range(10)),
            return_exceptions=True,
        )
        assert all(getattr(r, "reason", None) == "ID_TOKEN_UNKNOWN_KEY" for r in results)
        assert provider.jwks_fetches == fetched + 2

    async def test_a_tampered_token_is_refused(self, relying_party: Providers, unique: str) -> None:
        provider = relying_party.get("test")
        token, nonce = await id_token_of(provider, f"b-{unique}")
        header, payload, signature = token.split(".")
        flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
        with pytest.raises(ParlorError) as error:
            await provider.verify_id_token(f"{header}.{payload}.{flipped}", nonce)
        refused(error, Unauthenticated, "ID_TOKEN_BAD_SIGNATURE")
        with pytest.raises(ParlorError) as error:
            await provider.verify_id_token("not-a-token", nonce)
        refused(error, Unauthenticated, "ID_TOKEN_INVALID")


async def test_rotated_provider_keys_are_fetched_again(unique: str) -> None:
    """The provider restarts with a new key (rotation): the next sign-in's ID token names
    a key id Parlor has not seen, and one refetch of the JWKS finds it."""
    port = free_port()
    with running_provider(signing_keys("old-key"), port=port) as idp:
        providers = Providers({"test": config_for(idp.issuer)})
        provider = providers.get("test")
        token, nonce = await id_token_of(provider, f"old-{unique}")
        await provider.verify_id_token(token, nonce)
    try:
        with running_provider(signing_keys("new-key"), port=port):
            provider._refetched -= JWKS_REFETCH_SECONDS + 1  # the last fetch a while ago
            token, nonce = await id_token_of(provider, f"new-{unique}")
            claims = await provider.verify_id_token(token, nonce)
            assert claims["sub"] == f"new-{unique}"
            assert provider.jwks_fetches == 2
    finally:
        await providers.close()
