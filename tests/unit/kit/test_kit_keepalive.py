"""Keepalive pings: a stream to a peer that stops answering ends, on either side, in a bounded
time; a quiet stream whose client pings is not refused by the server for pinging."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import pytest
from kit_fixture_server import SERVICE, probe_component
from kits.proxy import SilentProxy

from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.keepalive import KeepaliveSettings
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Server, ServerSettings, running
from parlor.kit.settings import SettingsError, load
from parlor.kit.status import reason_of

AUTH = AuthSettings(private_key=generate_private_key())
TOKEN = issue_token(AUTH, "player-1", "Ada")
PING_SECONDS = 0.5
BOUND_SECONDS = 10.0  # pings every 0.5 s answered within 0.5 s: a dead peer is found in ~1 s


@pytest.fixture
async def server(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Server]:
    """A server and (through the environment) every channel of the kit pinging every 0.5 s;
    one stream at a time per player."""
    monkeypatch.setenv("PARLOR_GRPC_KEEPALIVE_SECONDS", str(PING_SECONDS))
    monkeypatch.setenv("PARLOR_GRPC_KEEPALIVE_TIMEOUT_SECONDS", str(PING_SECONDS))
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    limits = RateLimitSettings(max_streams=1)
    async with running(settings, [probe_component], AUTH, limits) as srv:
        yield srv


def quiet(channel: grpc.aio.Channel, seconds: float) -> grpc.aio.UnaryStreamCall[bytes, bytes]:
    return channel.unary_stream(f"/{SERVICE}/Quiet")(str(seconds).encode())


async def test_a_stream_to_a_server_that_stops_answering_ends_unavailable(server: Server) -> None:
    async with SilentProxy(server.port) as proxy, client.channel(proxy.target, TOKEN) as channel:
        call = quiet(channel, 60)
        assert await call.read() == b"first"
        proxy.silence()  # the server's host is gone: no answer, no FIN, no reset
        started = time.monotonic()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(call.read(), BOUND_SECONDS)  # TimeoutError: it hung
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert time.monotonic() - started < BOUND_SECONDS


async def test_a_server_ends_the_stream_of_a_client_that_stops_answering(server: Server) -> None:
    """The dead client's stream frees its player's one stream: they can watch again."""
    target = f"127.0.0.1:{server.port}"
    async with (
        SilentProxy(server.port) as proxy,
        grpc.aio.insecure_channel(proxy.target) as dead,  # no pings of its own
        client.channel(target, TOKEN) as alive,
    ):
        call = dead.unary_stream(f"/{SERVICE}/Quiet")(
            b"60", metadata=(("authorization", f"Bearer {TOKEN}"),)
        )
        assert await call.read() == b"first"
        proxy.silence()  # the client's host is gone
        deadline = time.monotonic() + BOUND_SECONDS
        while True:
            again = quiet(alive, 60)
            try:
                assert await again.read() == b"first"
                break
            except grpc.aio.AioRpcError as refused:
                assert reason_of(refused) == "TOO_MANY_STREAMS"
                assert time.monotonic() < deadline, "the dead client's stream was never ended"
                await asyncio.sleep(0.2)
            finally:
                again.cancel()


async def test_a_quiet_stream_outlives_many_pings(server: Server) -> None:
    """The server takes a ping every half of the clients' interval: no GOAWAY too_many_pings
    (gRPC's own default takes one every 5 minutes while it sends nothing, then closes the
    connection after two early pings, ending every call on it)."""
    async with client.channel(f"127.0.0.1:{server.port}", TOKEN) as channel:
        call = quiet(channel, 8 * PING_SECONDS)
        assert await call.read() == b"first"
        assert await call.read() == b"after the quiet"
        assert await call.read() is grpc.aio.EOF


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
@pytest.mark.parametrize(
    "env", ["PARLOR_GRPC_KEEPALIVE_SECONDS", "PARLOR_GRPC_KEEPALIVE_TIMEOUT_SECONDS"]
)
def test_a_keepalive_that_is_not_a_time_stops_the_start(env: str, value: str) -> None:
    with pytest.raises(SettingsError, match=env):
        load(KeepaliveSettings, {env: value})


def test_servers_take_pings_every_5_s_or_half_the_interval() -> None:
    permitted = "grpc.http2.min_ping_interval_without_data_ms"
    assert dict(KeepaliveSettings().server_options())[permitted] == 5000
    assert dict(KeepaliveSettings(seconds=4).server_options())[permitted] == 2000
    options = dict(KeepaliveSettings().channel_options())
    assert options["grpc.keepalive_time_ms"] == 20000
    assert options["grpc.http2.max_pings_without_data"] == 0  # a quiet stream is pinged on
