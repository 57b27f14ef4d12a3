"""A service token is taken only by the services it names (its ``aud`` claim).

A service token holds powers no player has (it seats anyone, acts for any seat, makes
tickets for others, is not rate-limited), so a word game's token, made to ask the
dictionary, must open nothing else: every other service refuses it with UNAUTHENTICATED
TOKEN_WRONG_AUDIENCE, and a game's own key cannot sign a token for any service its JWK
does not name (TOKEN_INVALID). On a server hosting several components (the platform),
the audience is the component serving the called method. Player, guest and admin tokens
name no audience and are taken everywhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from kit_fixture_server import SERVICE, probe_component

from parlor.core.errors import Unauthenticated
from parlor.kit import auth, client
from parlor.kit.auth import (
    WRONG_AUDIENCE,
    AuthSettings,
    generate_private_key,
    issue_token,
    jwks,
    refresh_token,
    verify_token,
)
from parlor.kit.interceptor import ServerInterceptor
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Component, GrpcService, ServerSettings, running
from parlor.kit.settings import SettingsError
from parlor.kit.status import reason_of

IDENTITY_KEY = generate_private_key()
UPWORDS_KEY = generate_private_key()
IDENTITY = AuthSettings(private_key=IDENTITY_KEY)
JWKS = jwks({"identity": IDENTITY_KEY, "upwords": UPWORDS_KEY}, {"upwords": ["dictionary"]})
UPWORDS = AuthSettings(private_key=UPWORDS_KEY, key_id="upwords", public_keys=JWKS)
VERIFIER = AuthSettings(public_keys=JWKS)
OTHERS = ("matchmaking", "upwords", "takefour", "connect4x4", "scoring", "")


def word_game_token() -> str:
    return issue_token(UPWORDS, "service:upwords", roles=("service",), audience=("dictionary",))


def refused(settings: AuthSettings, token: str, audience: str | None) -> str:
    with pytest.raises(Unauthenticated) as caught:
        verify_token(settings, token, audience)
    return str(caught.value.reason)


def test_a_word_games_token_is_taken_by_the_dictionary_and_no_other_service() -> None:
    token = word_game_token()
    identity = verify_token(VERIFIER, token, "dictionary")
    assert identity.is_service
    assert identity.audience == ("dictionary",)
    for audience in OTHERS:
        assert refused(VERIFIER, token, audience) == WRONG_AUDIENCE, audience
    with pytest.raises(Unauthenticated, match="'dictionary', not 'matchmaking'"):
        verify_token(VERIFIER, token, "matchmaking")


def test_a_token_taken_for_one_service_is_checked_again_for_another() -> None:
    token = word_game_token()
    assert verify_token(VERIFIER, token, "dictionary").is_service  # remembered
    assert refused(VERIFIER, token, "matchmaking") == WRONG_AUDIENCE
    assert verify_token(VERIFIER, token, "dictionary").is_service


@pytest.mark.parametrize(
    "audience",
    [("matchmaking",), ("dictionary", "matchmaking"), ("upwords",), ("takefour",)],
)
def test_a_game_services_key_cannot_sign_for_a_service_it_does_not_call(
    audience: tuple[str, ...],
) -> None:
    forged = issue_token(UPWORDS, "service:upwords", roles=("service",), audience=audience)
    for at in (*audience, "dictionary", None):
        assert refused(VERIFIER, forged, at) == "TOKEN_INVALID", at


def test_a_service_key_whose_jwk_names_no_service_signs_for_none() -> None:
    bare = AuthSettings(public_keys=jwks({"identity": IDENTITY_KEY, "upwords": UPWORDS_KEY}))
    assert refused(bare, word_game_token(), "dictionary") == "TOKEN_INVALID"


@pytest.mark.parametrize("signer", [IDENTITY, UPWORDS])
def test_a_service_token_that_names_no_audience_is_refused_everywhere(
    signer: AuthSettings,
) -> None:
    token = issue_token(signer, "service:upwords", roles=("service",))
    for audience in ("dictionary", "matchmaking", None):
        assert refused(VERIFIER, token, audience) == WRONG_AUDIENCE, audience
    empty = issue_token(IDENTITY, "service:tests", roles=("service",), audience=())
    assert refused(VERIFIER, empty, "matchmaking") == WRONG_AUDIENCE


def test_an_identity_signed_service_token_is_taken_by_each_service_it_names() -> None:
    token = issue_token(IDENTITY, "service:tests", roles=("service",), audience=("a", "b"))
    assert verify_token(VERIFIER, token, "a").audience == ("a", "b")
    assert verify_token(VERIFIER, token, "b").is_service
    assert refused(VERIFIER, token, "c") == WRONG_AUDIENCE


def test_player_guest_and_admin_tokens_are_taken_by_every_service() -> None:
    for roles in ((), ("guest",), ("admin",)):
        token = issue_token(IDENTITY, "ada", "Ada", roles)
        for audience in ("dictionary", *OTHERS, None):
            identity = verify_token(VERIFIER, token, audience)
            assert (identity.player_id, identity.roles, identity.audience) == ("ada", roles, ())


def test_a_refreshed_service_token_keeps_its_audience() -> None:
    token = issue_token(IDENTITY, "service:tests", roles=("service",), audience=("matchmaking",))
    renewed = refresh_token(IDENTITY, verify_token(IDENTITY, token, "matchmaking"))
    assert verify_token(VERIFIER, renewed, "matchmaking").audience == ("matchmaking",)
    assert refused(VERIFIER, renewed, "upwords") == WRONG_AUDIENCE


def test_a_jwks_whose_aud_is_not_a_list_of_names_is_refused_at_start() -> None:
    document = JWKS.replace('"aud": ["dictionary"]', '"aud": "dictionary"')
    assert document != JWKS
    with pytest.raises(SettingsError, match="aud"):
        auth.keyring(AuthSettings(public_keys=document))


# -- the interceptor: the audience is the component serving the called method --------------

OTHER_SERVICE = "parlor.kittest.v1.Other"


def _add_other(server: grpc.aio.Server) -> None:
    async def echo(request: bytes, context: Any) -> bytes:
        return request

    handlers = {"Echo": grpc.unary_unary_rpc_method_handler(echo, lambda b: b, lambda b: b)}
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(OTHER_SERVICE, handlers),)
    )


@contextlib.asynccontextmanager
async def other_component() -> AsyncIterator[Component]:
    yield Component(name="other", services=[GrpcService(OTHER_SERVICE, _add_other)])


def test_the_interceptor_names_the_component_of_each_method() -> None:
    interceptor = ServerInterceptor(VERIFIER, components={SERVICE: "probe"})
    assert interceptor.audience(f"/{SERVICE}/Echo") == "probe"
    assert interceptor.audience(f"/{OTHER_SERVICE}/Echo") == ""  # served by no component
    assert interceptor.audience("/grpc.health.v1.Health/Check") is None


async def test_one_server_of_two_components_takes_a_service_token_only_for_its_own() -> None:
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    limits = RateLimitSettings(per_second=0.001, burst=2)
    for_probe = issue_token(IDENTITY, "service:tests", roles=("service",), audience=("probe",))
    async with running(settings, [probe_component, other_component], VERIFIER, limits) as srv:
        target = f"127.0.0.1:{srv.port}"
        async with client.channel(target, for_probe) as ch:
            for _ in range(5):  # a service meant for this component: not rate-limited
                assert await ch.unary_unary(f"/{SERVICE}/Echo")(b"hi") == b"hi"
            with pytest.raises(grpc.aio.AioRpcError) as wrong:
                await ch.unary_unary(f"/{OTHER_SERVICE}/Echo")(b"hi")
        assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert reason_of(wrong.value) == WRONG_AUDIENCE
        assert "'probe', not 'other'" in (wrong.value.details() or "")
        async with client.channel(target, word_game_token()) as ch:
            for method in (f"/{SERVICE}/Echo", f"/{OTHER_SERVICE}/Echo"):
                with pytest.raises(grpc.aio.AioRpcError) as wrong:
                    await ch.unary_unary(method)(b"hi")
                assert reason_of(wrong.value) == WRONG_AUDIENCE, method
        async with client.channel(target, issue_token(IDENTITY, "ada")) as ch:
            for method in (f"/{SERVICE}/Echo", f"/{OTHER_SERVICE}/Echo"):
                assert await ch.unary_unary(method)(b"hi") == b"hi"
