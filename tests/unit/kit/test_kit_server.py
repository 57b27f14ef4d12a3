"""The service kit: settings fail fast, errors map to statuses, SIGTERM drains in-flight calls."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kit_fixture_server import SERVICE, probe_component

from parlor.kit import client
from parlor.kit.auth import AuthSettings, bearer, generate_private_key, issue_token
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Server, ServerSettings, running
from parlor.kit.settings import REGISTRY, SettingsError, load, setting
from parlor.kit.status import reason_of

HERE = Path(__file__).parent


def _call(channel: grpc.aio.Channel, method: str):  # type: ignore[no-untyped-def]
    return channel.unary_unary(f"/{SERVICE}/{method}")


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=5)
    async with running(settings, [probe_component], AUTH) as srv:
        yield srv


AUTH = AuthSettings(private_key=generate_private_key())
SIGTERM_KEY = generate_private_key()


@pytest.fixture
async def channel(server: Server) -> AsyncIterator[grpc.aio.Channel]:
    token = issue_token(AUTH, "player-1", "Ada")
    async with client.channel(f"127.0.0.1:{server.port}", token) as ch:
        yield ch


@pytest.fixture
async def anonymous(server: Server) -> AsyncIterator[grpc.aio.Channel]:
    async with client.channel(f"127.0.0.1:{server.port}") as ch:
        yield ch


async def test_a_call_without_a_token_is_unauthenticated(anonymous: grpc.aio.Channel) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _call(anonymous, "Echo")(b"hi")
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(caught.value) == "TOKEN_MISSING"


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (
            issue_token(AuthSettings(private_key=generate_private_key()), "p"),
            "TOKEN_INVALID",
        ),
        (issue_token(AUTH, "p", now=1_000_000), "TOKEN_EXPIRED"),
        ("not.a.token", "TOKEN_INVALID"),
    ],
)
async def test_a_bad_token_is_unauthenticated_with_its_reason(
    server: Server, token: str, reason: str
) -> None:
    async with client.channel(f"127.0.0.1:{server.port}", token) as ch:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _call(ch, "Echo")(b"hi")
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(caught.value) == reason


async def test_a_player_over_the_rate_limit_gets_resource_exhausted() -> None:
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0)
    limits = RateLimitSettings(per_second=0.5, burst=2)
    async with running(settings, [probe_component], AUTH, limits) as srv:
        async with client.channel(f"127.0.0.1:{srv.port}", issue_token(AUTH, "greedy")) as ch:
            assert await _call(ch, "Echo")(b"1") == b"1"
            assert await _call(ch, "Echo")(b"2") == b"2"
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await _call(ch, "Echo")(b"3")
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(caught.value) == "RATE_LIMITED"
            health = health_pb2_grpc.HealthStub(ch)
            for _ in range(5):  # probes are never limited
                await health.Check(health_pb2.HealthCheckRequest())


async def test_bytes_that_are_not_the_request_type_are_an_invalid_argument(
    server: Server,
) -> None:
    token = issue_token(AUTH, "player-1")
    async with client.channel(f"127.0.0.1:{server.port}", token) as ch:
        check = ch.unary_unary("/grpc.health.v1.Health/Check")
        reply = await check(b"")  # empty bytes are a valid (empty) message
        assert reply
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await check(b"\xff\xff\xff\xff")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(caught.value) == "MALFORMED_REQUEST"


async def test_a_nul_character_in_any_string_field_is_an_invalid_argument(
    server: Server,
) -> None:
    """PostgreSQL refuses NUL in text: the kit refuses it first, for every service alike."""
    token = issue_token(AUTH, "player-1")
    async with client.channel(f"127.0.0.1:{server.port}", token) as ch:
        check = ch.unary_unary("/grpc.health.v1.Health/Check")
        request = health_pb2.HealthCheckRequest(service="parlor\x00.v1").SerializeToString()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await check(request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(caught.value) == "NUL_CHARACTER"
    assert "service holds a NUL character" in (caught.value.details() or "")


async def test_health_needs_no_token(anonymous: grpc.aio.Channel) -> None:
    reply = await health_pb2_grpc.HealthStub(anonymous).Check(health_pb2.HealthCheckRequest())
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


@pytest.fixture
def scratch_registry() -> Iterator[None]:
    """Settings made up by a test leave the registry as they found it.

    ``tests/deploy`` checks that every registered setting is in the manifests; a
    made-up one left behind would fail it when both run in one session.
    """
    before = dict(REGISTRY)
    yield
    REGISTRY.clear()
    REGISTRY.update(before)


@pytest.mark.usefixtures("scratch_registry")
def test_a_bad_setting_fails_naming_it() -> None:
    @dataclasses.dataclass(frozen=True)
    class Example:
        url: str = setting("PARLOR_EXAMPLE_URL", "where the thing is")
        port: int = setting("PARLOR_EXAMPLE_PORT", "a port", 1)

    with pytest.raises(SettingsError, match="PARLOR_EXAMPLE_PORT='abc' is invalid"):
        load(Example, {"PARLOR_EXAMPLE_PORT": "abc", "PARLOR_EXAMPLE_URL": "x"})
    with pytest.raises(SettingsError, match="PARLOR_EXAMPLE_URL is required"):
        load(Example, {})
    assert load(Example, {"PARLOR_EXAMPLE_URL": "x"}) == Example(port=1, url="x")


def test_a_bad_setting_stops_the_service_at_start() -> None:
    env = {**os.environ, "PARLOR_GRPC_PORT": "not-a-port", "PYTHONPATH": str(HERE)}
    proc = subprocess.run(
        [sys.executable, str(HERE / "kit_fixture_server.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "PARLOR_GRPC_PORT='not-a-port' is invalid" in proc.stderr
    assert "Traceback" not in proc.stderr


async def test_health_reports_serving_and_reflection_lists_services(
    server: Server, channel: grpc.aio.Channel
) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    for name in ("", SERVICE):
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=name))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    refl = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    names: set[str] = set()
    async for response in refl.ServerReflectionInfo(iter([request])):
        names |= {s.name for s in response.list_services_response.service}
    assert {SERVICE, "grpc.health.v1.Health"} <= names


async def test_a_rule_violation_reaches_the_client_with_its_reason(
    channel: grpc.aio.Channel,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _call(channel, "Fail")(b"rule")
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert caught.value.details() == "column d is full on the front side"
    assert reason_of(caught.value) == "COLUMN_FULL"


async def test_not_found_maps_to_not_found(channel: grpc.aio.Channel) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _call(channel, "Fail")(b"missing")
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert reason_of(caught.value) == "GAME_NOT_FOUND"


async def test_a_database_out_of_reach_outside_the_store_is_unavailable_not_internal(
    channel: grpc.aio.Channel,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _call(channel, "Fail")(b"pool")
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE  # a client may retry
    assert reason_of(caught.value) == "DATABASE_UNAVAILABLE"
    assert "QueuePool" not in (caught.value.details() or "")


async def test_an_unexpected_error_is_internal_and_reveals_nothing(
    channel: grpc.aio.Channel,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _call(channel, "Fail")(b"crash")
    assert caught.value.code() == grpc.StatusCode.INTERNAL
    assert "rack" not in (caught.value.details() or "")
    assert "incident" in (caught.value.details() or "")


async def test_an_error_in_a_stream_is_mapped_after_the_items(channel: grpc.aio.Channel) -> None:
    call = channel.unary_stream(f"/{SERVICE}/Count")(b"3")
    items = []
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for item in call:
            items.append(item)
    assert items == [b"0", b"1", b"2"]
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(caught.value) == "STREAM_ENDED_BADLY"


async def test_the_deadline_is_honoured(channel: grpc.aio.Channel) -> None:
    started = time.monotonic()
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _call(channel, "Slow")(b"5", timeout=0.2)
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - started < 2


def test_sigterm_lets_an_in_flight_call_finish() -> None:
    env = {
        **os.environ,
        "PARLOR_GRPC_HOST": "127.0.0.1",
        "PARLOR_GRPC_PORT": "0",
        "PARLOR_METRICS_PORT": "0",
        "PARLOR_SHUTDOWN_GRACE_SECONDS": "10",
        "PYTHONPATH": str(HERE),
        "PARLOR_JWT_PRIVATE_KEY": SIGTERM_KEY,
    }
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "kit_fixture_server.py")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = ""
        while not line.startswith("parlor: serving"):
            line = proc.stdout.readline()
            assert line, "the server exited before serving"
        port = int(line.rsplit(" ", 1)[1])
        token = issue_token(AuthSettings(private_key=SIGTERM_KEY), "p")
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            future = ch.unary_unary(f"/{SERVICE}/Slow").future(
                b"1.5", timeout=10, metadata=bearer(token)
            )
            time.sleep(0.5)
            proc.send_signal(signal.SIGTERM)
            assert future.result() == b"finished"
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
