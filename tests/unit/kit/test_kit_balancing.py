"""Calls between services are balanced per call: the kit's channels pick ``round_robin`` over
every address their target resolves to, and a server may end its connections after an age
so that its clients resolve the target again (deploy/README.md, "gRPC load balancing").

The servers here are dictionary-like: real grpc.aio servers of ``DictionaryService`` whose
one lexicon names the server that answered.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.dictionary.v1 import dictionary_pb2_grpc as dpb_grpc
from parlor.kit import client
from parlor.kit.server import ServerSettings, grpc_options
from parlor.kit.settings import SettingsError, load


class Named(dpb_grpc.DictionaryServiceServicer):
    """Answers ListLexicons with one lexicon named after this server; keeps its callers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.peers: list[str] = []

    async def ListLexicons(self, request: Any, context: Any) -> dpb.ListLexiconsResponse:
        self.peers.append(context.peer())
        return dpb.ListLexiconsResponse(lexicons=[dpb.Lexicon(id=self.name, name=self.name)])


async def serve(
    servicer: Named, address: str, options: list[tuple[str, int]] | None = None
) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(options=options or [])
    dpb_grpc.add_DictionaryServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port(address)
    assert port, f"cannot bind {address}"
    await server.start()
    return server, port


async def answered_by(channel: grpc.aio.Channel) -> str:
    stub = dpb_grpc.DictionaryServiceStub(channel)
    response = await stub.ListLexicons(dpb.ListLexiconsRequest(), timeout=5)
    return str(response.lexicons[0].name)


@pytest.fixture
async def two_servers() -> AsyncIterator[str]:
    """Two dictionaries at two loopback addresses, as a headless Service lists two pods: the
    target naming both."""
    servers = []
    try:
        first, p1 = await serve(Named("first"), "127.0.0.1:0")
        servers.append(first)
        second, p2 = await serve(Named("second"), "127.0.0.2:0")
        servers.append(second)
        yield f"ipv4:127.0.0.1:{p1},127.0.0.2:{p2}"
    finally:
        for server in servers:
            await server.stop(None)


def test_the_channels_service_config_balances_per_call_and_retries_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: dict[str, Any] = {}

    def insecure_channel(target: str, **kwargs: Any) -> object:
        made.update(kwargs, target=target)
        return object()

    monkeypatch.setattr(client.grpc.aio, "insecure_channel", insecure_channel)
    client.channel("dns:///dictionary-pods:50051", "a-token")
    options = dict(made["options"])
    config = json.loads(options["grpc.service_config"])
    assert config["loadBalancingConfig"] == [{"round_robin": {}}]
    (method,) = config["methodConfig"]
    assert method["name"] == [{}]  # every method
    assert method["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
    assert method["retryPolicy"]["maxAttempts"] == 5
    assert options["grpc.enable_retries"] == 1
    assert options["grpc.use_local_subchannel_pool"] == 1
    assert made["target"] == "dns:///dictionary-pods:50051"


async def test_calls_through_a_channel_reach_every_address_of_its_target(
    two_servers: str,
) -> None:
    async with client.channel(two_servers) as channel:
        seen: list[str] = []
        for _ in range(50):  # round_robin turns to the second once it has connected
            seen.append(await answered_by(channel))
            if set(seen) == {"first", "second"}:
                break
        assert set(seen) == {"first", "second"}
        turns = [await answered_by(channel) for _ in range(10)]
    assert turns.count("first") == turns.count("second") == 5, turns


async def test_with_grpcs_default_policy_every_call_goes_to_one_address(two_servers: str) -> None:
    """What the test above tells apart: pick_first, the default, sends all to one server."""
    async with grpc.aio.insecure_channel(two_servers) as channel:
        seen = {await answered_by(channel) for _ in range(20)}
    assert len(seen) == 1, seen


async def test_channels_to_one_port_of_several_workers_are_spread_over_them() -> None:
    """``make run``'s workers share one port (SO_REUSEPORT) and the kernel hands each new
    connection to one of them: with round_robin a channel to one address still makes a
    connection of its own, so a process's channels reach every worker (a shared connection
    would pin them all to one)."""
    workers = [Named("worker-1"), Named("worker-2")]
    reuse = [("grpc.so_reuseport", 1)]
    first, port = await serve(workers[0], "127.0.0.1:0", reuse)
    second, _ = await serve(workers[1], f"127.0.0.1:{port}", reuse)
    try:
        seen = set()
        for _ in range(32):  # each worker missed by 32 connections: 1 in 2**31
            async with client.channel(f"127.0.0.1:{port}") as channel:
                seen.add(await answered_by(channel))
            if len(seen) == 2:
                break
        assert seen == {"worker-1", "worker-2"}
    finally:
        await first.stop(None)
        await second.stop(None)


def test_the_server_ends_connections_after_the_max_age_only_when_one_is_set() -> None:
    off = dict(grpc_options(ServerSettings()))
    assert "grpc.max_connection_age_ms" not in off
    assert "grpc.max_connection_age_grace_ms" not in off
    assert ServerSettings().max_connection_age_seconds == 0

    aged = load(
        ServerSettings,
        {"PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS": "60", "PARLOR_SHUTDOWN_GRACE_SECONDS": "20"},
    )
    options = dict(grpc_options(aged))
    assert options["grpc.max_connection_age_ms"] == 60_000
    # calls in flight when the connection ends get the shutdown grace
    assert options["grpc.max_connection_age_grace_ms"] == 20_000
    # the rest is as without an age
    assert {k: v for k, v in options.items() if "max_connection_age" not in k} == off

    zero = load(ServerSettings, {"PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS": "0"})
    assert dict(grpc_options(zero)) == off


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_max_age_that_is_not_a_duration_is_refused_naming_the_setting(value: str) -> None:
    with pytest.raises(SettingsError, match="PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS"):
        load(ServerSettings, {"PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS": value})


@pytest.mark.parametrize(("age", "connections"), [(0.3, "several"), (0.0, "one")])
async def test_a_server_with_a_max_age_makes_its_clients_connect_again(
    age: float, connections: str
) -> None:
    """Each new connection resolves the target again: where a scaled-up Service's new pods
    are found. Without an age, one connection serves every call."""
    settings = ServerSettings(max_connection_age_seconds=age, grace_seconds=1)
    dictionary = Named("aged")
    server, port = await serve(dictionary, "127.0.0.1:0", grpc_options(settings))
    try:
        async with client.channel(f"127.0.0.1:{port}") as channel:
            for _ in range(15):  # 1.5 s: five ages of 0.3 s
                await answered_by(channel)
                await asyncio.sleep(0.1)
    finally:
        await server.stop(None)
    peers = set(dictionary.peers)  # ipv4:127.0.0.1:<the client's port>: one per connection
    assert len(dictionary.peers) == 15
    assert (len(peers) > 1) == (connections == "several"), peers
