"""A verified token is verified once until it expires; refused tokens are never remembered.

``verify_token`` remembers the identity of each token it accepted (``auth._VERIFIED``) so the
calls of one connection, which all carry the same token, check its signature once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace

import grpc
import pytest

from parlor.core.errors import Unauthenticated
from parlor.kit import auth, client
from parlor.kit.auth import AuthSettings, Identity, generate_private_key, issue_token, verify_token
from parlor.kit.interceptor import ServerInterceptor
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import ServerSettings, running

AUTH = AuthSettings(private_key=generate_private_key())
OTHER = AuthSettings(private_key=generate_private_key())


class Counting:
    """The signature check behind the cache, counting how often it runs."""

    def __init__(self) -> None:
        self.calls = 0
        self.inner = auth._verify

    def __call__(
        self, settings: AuthSettings, token: str, audience: str | None = None
    ) -> tuple[Identity, float]:
        self.calls += 1
        return self.inner(settings, token, audience)


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counting]:
    counting = Counting()
    monkeypatch.setattr(auth, "_verify", counting)
    auth._VERIFIED.clear()
    yield counting
    auth._VERIFIED.clear()


def test_the_same_token_is_verified_once(checks: Counting) -> None:
    token = issue_token(AUTH, "ada", "Ada")
    first, second = verify_token(AUTH, token), verify_token(AUTH, token)
    assert first == second
    assert (first.player_id, first.name) == ("ada", "Ada")
    assert checks.calls == 1


def test_another_token_of_the_same_player_is_verified_on_its_own(checks: Counting) -> None:
    verify_token(AUTH, issue_token(AUTH, "ada"))
    verify_token(AUTH, issue_token(AUTH, "ada"))  # a fresh jti: other bytes
    assert checks.calls == 2


def test_a_token_accepted_by_one_keyring_is_checked_again_by_another(checks: Counting) -> None:
    token = issue_token(AUTH, "ada")
    verify_token(AUTH, token)
    with pytest.raises(Unauthenticated) as caught:
        verify_token(OTHER, token)
    assert caught.value.reason == "TOKEN_INVALID"


def test_an_expired_token_is_refused_even_if_it_was_accepted_before(checks: Counting) -> None:
    issued = int(time.time())
    token = issue_token(AUTH, "ada", ttl_seconds=2, now=issued)
    assert verify_token(AUTH, token).player_id == "ada"
    time.sleep(max(0.0, issued + 2.2 - time.time()))  # past exp (issued + 2)
    with pytest.raises(Unauthenticated) as caught:
        verify_token(AUTH, token)
    assert caught.value.reason == "TOKEN_EXPIRED"
    assert checks.calls == 2


def test_a_refused_token_is_not_remembered(checks: Counting) -> None:
    forged = issue_token(OTHER, "mallory")
    for _ in range(2):
        with pytest.raises(Unauthenticated) as caught:
            verify_token(AUTH, forged)
        assert caught.value.reason == "TOKEN_INVALID"
    assert checks.calls == 2
    assert not any(token == forged for _, token in auth._VERIFIED)


def test_the_cache_is_bounded(checks: Counting, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth, "_VERIFIED_SIZE", 2)
    tokens = [issue_token(AUTH, name) for name in "abc"]
    for token in tokens:
        verify_token(AUTH, token)
    assert len(auth._VERIFIED) == 2
    verify_token(AUTH, tokens[0])  # the oldest went: checked again
    assert checks.calls == 4


async def test_the_server_verifies_a_connections_token_once(checks: Counting) -> None:
    from kit_fixture_server import SERVICE, probe_component

    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    no_limit = RateLimitSettings(per_second=0, burst=1)
    async with running(settings, [probe_component], AUTH, no_limit) as server:
        token = issue_token(AUTH, "ada")
        async with client.channel(f"127.0.0.1:{server.port}", token) as ch:
            for _ in range(5):
                assert await ch.unary_unary(f"/{SERVICE}/Echo")(b"hi") == b"hi"
    assert checks.calls == 1


def test_the_cache_forgets_the_least_recently_used_token_first(
    checks: Counting, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(auth, "_VERIFIED_SIZE", 2)
    busy, idle, new = (issue_token(AUTH, name) for name in "abc")
    verify_token(AUTH, busy)
    verify_token(AUTH, idle)
    verify_token(AUTH, busy)  # used again: now the most recent
    verify_token(AUTH, new)  # one too many: the idle one goes
    verify_token(AUTH, busy)
    assert checks.calls == 3
    verify_token(AUTH, idle)
    assert checks.calls == 4


async def test_each_method_is_wrapped_once_and_every_call_counted(checks: Counting) -> None:
    from kit_fixture_server import SERVICE, probe_component

    from parlor.kit import metrics

    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    no_limit = RateLimitSettings(per_second=0, burst=1)
    handled = metrics.HANDLED.labels(SERVICE, "Echo", "OK")
    before = handled._value.get()
    async with running(settings, [probe_component], AUTH, no_limit) as server:
        token = issue_token(AUTH, "ada")
        async with client.channel(f"127.0.0.1:{server.port}", token) as ch:
            for _ in range(3):
                assert await ch.unary_unary(f"/{SERVICE}/Echo")(b"hi") == b"hi"
    assert handled._value.get() == before + 3

    # gRPC asks the interceptor for every call: the handler it gives is the same each time
    interceptor = ServerInterceptor(AUTH)
    echo = grpc.unary_unary_rpc_method_handler(lambda request, context: request)
    details = SimpleNamespace(method=f"/{SERVICE}/Echo", invocation_metadata=())

    async def continuation(_: object) -> grpc.RpcMethodHandler:
        return echo

    first = await interceptor.intercept_service(continuation, details)  # type: ignore[arg-type]
    again = await interceptor.intercept_service(continuation, details)  # type: ignore[arg-type]
    assert first is again
    assert first is not echo
