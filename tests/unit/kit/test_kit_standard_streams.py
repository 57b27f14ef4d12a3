"""The standard services' streams (health's Watch, reflection) answer, and are capped.

They need no token (probes and tooling), so nothing but the caller's address bounds them:
each tokenless caller, and each address, holds no more of them than of any other stream
(``PARLOR_MAX_STREAMS_PER_CALLER``, ``PARLOR_MAX_STREAMS_PER_ADDRESS``). Before, Watch was
answered INTERNAL (the kit iterated a handler that writes), and reflection streams were
not counted at all: one client could hold any number open.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from kit_fixture_server import probe_component

from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Server, ServerSettings, running
from parlor.kit.status import reason_of

AUTH = AuthSettings(private_key=generate_private_key())
CAP = 3


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    limits = RateLimitSettings(max_streams=CAP, max_streams_per_address=10 * CAP)
    async with running(settings, [probe_component], AUTH, limits) as srv:
        yield srv


async def test_health_watch_answers_without_a_token(server: Server) -> None:
    async with client.channel(f"127.0.0.1:{server.port}") as ch:
        call = health_pb2_grpc.HealthStub(ch).Watch(health_pb2.HealthCheckRequest())
        first = await asyncio.wait_for(call.read(), 10)
        call.cancel()
    assert first.status == health_pb2.HealthCheckResponse.SERVING


async def test_tokenless_health_watches_from_one_address_are_capped(server: Server) -> None:
    async with client.channel(f"127.0.0.1:{server.port}") as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        held = [stub.Watch(health_pb2.HealthCheckRequest()) for _ in range(CAP)]
        for call in held:
            assert (await asyncio.wait_for(call.read(), 10)).status
        extra = stub.Watch(health_pb2.HealthCheckRequest())
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(extra.read(), 10)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(caught.value) == "TOO_MANY_STREAMS"
        held[0].cancel()
        await asyncio.sleep(0.3)  # a closed stream is given back
        again = stub.Watch(health_pb2.HealthCheckRequest())
        assert (await asyncio.wait_for(again.read(), 10)).status
        for call in [*held, again]:
            call.cancel()


async def test_tokenless_reflection_streams_from_one_address_are_capped(server: Server) -> None:
    ask = reflection_pb2.ServerReflectionRequest(list_services="")
    async with client.channel(f"127.0.0.1:{server.port}") as ch:
        stub = reflection_pb2_grpc.ServerReflectionStub(ch)
        held = []
        for _ in range(CAP):
            call = stub.ServerReflectionInfo()
            await call.write(ask)
            answer = await asyncio.wait_for(call.read(), 10)
            assert answer.list_services_response.service
            held.append(call)
        extra = stub.ServerReflectionInfo()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await extra.write(ask)
            await asyncio.wait_for(extra.read(), 10)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(caught.value) == "TOO_MANY_STREAMS"
        for call in held:
            call.cancel()
