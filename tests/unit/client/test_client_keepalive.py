"""parlor-client pings its connection: a stream from a server that stops answering fails
``Unavailable`` in a bounded time instead of waiting for ever."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from kits.proxy import SilentProxy

from parlor import client as pc
from parlor.kit.keepalive import KeepaliveSettings

PING_SECONDS = 1.0
BOUND_SECONDS = 10.0


async def quiet(request: bytes, context: Any) -> AsyncIterator[bytes]:
    yield b"first"
    await asyncio.sleep(60)


@pytest.fixture
async def port() -> AsyncIterator[int]:
    """A server that takes the client's pings (Parlor's take one every 5 s, or half the
    interval their own channels ping at)."""
    server = grpc.aio.server(options=KeepaliveSettings(seconds=PING_SECONDS).server_options())
    handler = grpc.unary_stream_rpc_method_handler(quiet)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("test.Quiet", {"Watch": handler}),)
    )
    bound = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield bound
    finally:
        await server.stop(None)


async def test_a_stream_from_a_server_that_stops_answering_fails_unavailable(port: int) -> None:
    async with (
        SilentProxy(port) as proxy,
        pc.ParlorClient(proxy.target, "tok", keepalive_seconds=PING_SECONDS) as parlor,
    ):
        items = parlor.stream(parlor.channel.unary_stream("/test.Quiet/Watch"), b"")
        assert await anext(items) == b"first"
        proxy.silence()
        started = time.monotonic()
        with pytest.raises(pc.Unavailable):
            await asyncio.wait_for(anext(items), BOUND_SECONDS)  # TimeoutError: it hung
        assert time.monotonic() - started < BOUND_SECONDS
        await items.aclose()


def test_pings_are_sent_on_quiet_streams_and_idle_connections_alike() -> None:
    options = dict(pc.client.keepalive_options(pc.client.KEEPALIVE_SECONDS))
    assert options["grpc.keepalive_time_ms"] == 20_000
    assert options["grpc.keepalive_permit_without_calls"] == 1
    assert options["grpc.http2.max_pings_without_data"] == 0
    # the servers take a ping every 5 s, no more often
    assert pc.client.KEEPALIVE_SECONDS >= 5
