"""A verified token is verified once until it expires; refused tokens are never remembered."""

from __future__ import annotations

import time

import grpc
import pytest

from parlor.core.errors import Unauthenticated
from parlor.kit import client
from parlor.kit.auth import AuthSettings, Identity, issue_token, verify_token
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import ServerSettings, running
from parlor.kit.status import reason_of
from parlor.kit.tokencache import CachedVerifier

AUTH = AuthSettings(secret="cache-test-secret-of-at-least-32-bytes")
OTHER = AuthSettings(secret="another-secret-of-at-least-32-bytes!!")


class Counting:
    """The real verification, counting how often it runs."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, token: str) -> Identity:
        self.calls += 1
        return verify_token(AUTH, token)


def test_the_same_token_is_verified_once() -> None:
    verify = Counting()
    cached = CachedVerifier(verify)
    token = issue_token(AUTH, "ada", "Ada", roles=("player",))
    first, second = cached(token), cached(token)
    assert first == second == Identity("ada", "Ada", ("player",))
    assert verify.calls == 1
    assert (cached.hits, cached.misses) == (1, 1)


def test_another_token_of_the_same_player_is_verified_on_its_own() -> None:
    verify = Counting()
    cached = CachedVerifier(verify)
    cached(issue_token(AUTH, "ada"))
    cached(issue_token(AUTH, "ada"))  # a fresh jti: other bytes
    assert verify.calls == 2


def test_a_remembered_token_is_verified_again_after_its_expiry() -> None:
    now = [1_000_000.0]
    verify_calls: list[str] = []

    def verify(token: str) -> Identity:
        verify_calls.append(token)
        return Identity("ada")

    cached = CachedVerifier(verify, clock=lambda: now[0])
    token = issue_token(AUTH, "ada", ttl_seconds=60, now=now[0])
    cached(token)
    now[0] += 59
    cached(token)
    assert len(verify_calls) == 1
    now[0] += 1  # exactly at exp: no longer taken from the cache
    cached(token)
    assert len(verify_calls) == 2


def test_an_expired_token_is_refused_even_if_it_was_accepted_before() -> None:
    cached = CachedVerifier(lambda t: verify_token(AUTH, t))
    issued = int(time.time())
    token = issue_token(AUTH, "ada", ttl_seconds=2, now=issued)
    assert cached(token).player_id == "ada"
    time.sleep(max(0.0, issued + 2.2 - time.time()))  # past exp (issued + 2)
    with pytest.raises(Unauthenticated) as caught:
        cached(token)
    assert caught.value.reason == "TOKEN_EXPIRED"
    assert len(cached) == 0


def test_a_refused_token_is_not_remembered() -> None:
    verify = Counting()
    cached = CachedVerifier(verify)
    forged = issue_token(OTHER, "mallory")
    for _ in range(2):
        with pytest.raises(Unauthenticated) as caught:
            cached(forged)
        assert caught.value.reason == "TOKEN_INVALID"
    assert verify.calls == 2
    assert len(cached) == 0


def test_the_cache_is_bounded_and_forgets_the_least_recently_used() -> None:
    verify = Counting()
    cached = CachedVerifier(verify, size=2)
    a, b, c = (issue_token(AUTH, name) for name in "abc")
    cached(a)
    cached(b)
    cached(a)  # a is now the most recent
    cached(c)  # b goes
    assert len(cached) == 2
    calls = verify.calls
    cached(a)
    assert verify.calls == calls
    cached(b)
    assert verify.calls == calls + 1


def test_a_cache_needs_room() -> None:
    with pytest.raises(ValueError, match="at least one"):
        CachedVerifier(Counting(), size=0)


async def test_the_server_verifies_a_connections_token_once() -> None:
    from kit_fixture_server import SERVICE, probe_component

    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    no_limit = RateLimitSettings(per_second=0, burst=1)
    async with running(settings, [probe_component], AUTH, no_limit) as server:
        token = issue_token(AUTH, "ada")
        async with client.channel(f"127.0.0.1:{server.port}", token) as ch:
            for _ in range(5):
                assert await ch.unary_unary(f"/{SERVICE}/Echo")(b"hi") == b"hi"
        assert (server.interceptor.verify.misses, server.interceptor.verify.hits) == (1, 4)
        async with client.channel(f"127.0.0.1:{server.port}", issue_token(OTHER, "m")) as ch:
            for _ in range(2):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await ch.unary_unary(f"/{SERVICE}/Echo")(b"hi")
                assert reason_of(caught.value) == "TOKEN_INVALID"
