"""Issue 37, class 4: one network must not take the guest-token budget from everyone.

On main, one customer's IPv6 /56 asking from 128 /64s, 6 calls each, took 113 guest tokens
and then every other visitor was refused (``ANONYMOUS_LIMITED``: all tokenless calls shared
one bucket, and each /64 had a bucket of its own). Here the same flood, and one from every
address of an IPv4 /24, over gRPC (behind a trusted proxy's ``x-forwarded-for``) and through
the web bridge, against a running identity service with the deployed defaults: the flooding
network is refused as one network (``RATE_LIMITED``, with a retry delay), and new visitors
from other networks still get guest tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import Counter
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from parlor.identity.v1 import identity_pb2 as ipb
from parlor.identity.v1 import identity_pb2_grpc as ipb_grpc
from parlor.kit.auth import AuthSettings
from parlor.kit.main import available
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import ServerSettings, running
from parlor.kit.status import reason_of

pytestmark = pytest.mark.integration

# Every budget at its default; the callers are named by the proxy in front (the test).
LIMITS = RateLimitSettings(
    client_address_header="x-forwarded-for", trusted_proxies=("127.0.0.1/32",)
)
ISSUE = "/api/parlor.identity.v1.IdentityService/IssueGuestToken"
OTHERS = [f"2001:db8:{0x100 + n:x}::1" for n in range(5)] + [f"192.0.2.{n}" for n in range(5)]
"""Ten new visitors, each from a network (and a site) of its own."""


@contextlib.asynccontextmanager
async def identity() -> AsyncIterator[str]:
    """The identity service (matchmaking serves it) on a free port: its target."""
    auth = AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    async with running(settings, [available()["matchmaking"]], auth, LIMITS) as server:
        yield f"127.0.0.1:{server.port}"


def error_info(error: grpc.aio.AioRpcError) -> dict[str, str]:
    """The metadata of the ``google.rpc.ErrorInfo`` a Parlor server attached to an error."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return dict(info.metadata)
    raise AssertionError(f"no ErrorInfo in {error}")


async def over_grpc(stub: ipb_grpc.IdentityServiceStub, address: str) -> str:
    """A guest token asked for ``address``: "OK" or the refusal's reason."""
    try:
        await stub.IssueGuestToken(
            ipb.IssueGuestTokenRequest(), metadata=(("x-forwarded-for", address),), timeout=10
        )
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
        assert float(error_info(error)["retry_after_seconds"]) > 0
        return str(reason_of(error))
    return "OK"


async def flood_over_grpc(
    stub: ipb_grpc.IdentityServiceStub, addresses: list[str], calls: int
) -> tuple[Counter[str], float]:
    """Each address asks ``calls`` times, all addresses at once each round."""
    started = time.monotonic()
    codes: Counter[str] = Counter()
    for _ in range(calls):
        codes.update(await asyncio.gather(*(over_grpc(stub, a) for a in addresses)))
    return codes, time.monotonic() - started


def most_one_network_gets(seconds: float) -> float:
    """A network's burst, then its rate, for the time the flood lasted."""
    return LIMITS.guest_per_network_burst + LIMITS.guest_per_network_per_second * seconds + 1


@pytest.mark.parametrize(
    "flooding",
    [
        [f"2001:db8:7:{n:x}::1" for n in range(128)],  # 128 /64s of one /56
        [f"198.51.100.{n}" for n in range(128)],  # 128 addresses of one IPv4 /24
    ],
    ids=["ipv6-56", "ipv4-24"],
)
async def test_a_network_flooding_from_its_addresses_leaves_tokens_for_new_visitors(
    migrated: None, flooding: list[str]
) -> None:
    async with identity() as target, grpc.aio.insecure_channel(target) as channel:
        stub = ipb_grpc.IdentityServiceStub(channel)
        codes, seconds = await flood_over_grpc(stub, flooding, 6)
        assert set(codes) == {"OK", "RATE_LIMITED"}, codes  # refused as one network
        assert codes["OK"] <= most_one_network_gets(seconds), (codes, seconds)
        assert [await over_grpc(stub, v) for v in OTHERS] == ["OK"] * len(OTHERS)


async def test_through_the_web_bridge_a_flooding_56_leaves_tokens_for_new_visitors(
    migrated: None,
) -> None:
    """The bridge names each browser's address to the services (which trust it, the
    bridge calling from loopback): its browsers are limited as they would be over gRPC."""
    from parlor.webgateway.app import create_app
    from parlor.webgateway.catalog import catalog
    from parlor.webgateway.component import Channels

    async with identity() as target:
        channels = Channels(target, {})
        app = create_app(catalog(), channels, None)
        try:

            async def ask(address: str) -> str:
                transport = httpx.ASGITransport(app=app, client=(address, 40000))
                async with httpx.AsyncClient(
                    transport=transport, base_url="http://localhost"
                ) as web:
                    reply = await web.post(ISSUE, json={})
                if reply.status_code == 200:
                    return "OK"
                assert reply.status_code == 429, reply.text
                body = reply.json()
                assert float(body["metadata"]["retry_after_seconds"]) > 0
                return str(body["reason"])

            flooding = [f"2001:db8:9:{n:x}::1" for n in range(128)]
            started = time.monotonic()
            codes: Counter[str] = Counter()
            for _ in range(6):
                codes.update(await asyncio.gather(*(ask(a) for a in flooding)))
            seconds = time.monotonic() - started
            assert set(codes) == {"OK", "RATE_LIMITED"}, codes
            assert codes["OK"] <= most_one_network_gets(seconds), (codes, seconds)
            assert [await ask(v) for v in OTHERS] == ["OK"] * len(OTHERS)
        finally:
            await channels.close()
