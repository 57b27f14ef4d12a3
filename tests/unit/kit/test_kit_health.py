"""Health says what the process can do, one name per question (issue 38, item 6).

A service's own name is its readiness (it takes commands); a dependency it works without
(NATS) has a name of its own (``parlor.bus``), so an outage of it takes no pod out of
service; every name's status is the gauge ``parlor_health_serving``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kit_fixture_server import SERVICE, _add

from parlor.kit.auth import AuthSettings, generate_private_key
from parlor.kit.server import BUS_HEALTH, Component, GrpcService, Server, ServerSettings
from parlor.telemetry.metrics import HEALTH_SERVING

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
AUTH = AuthSettings(private_key=generate_private_key())


async def _status(target: str, name: str) -> int:
    async with grpc.aio.insecure_channel(target) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=name), timeout=5
        )
        return int(reply.status)


async def _until(target: str, name: str, status: int) -> None:
    for _ in range(100):
        if await _status(target, name) == status:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{name!r} never became {status}")


def _gauge(name: str) -> float:
    return float(HEALTH_SERVING.labels(name)._value.get())


async def test_a_dependency_checked_apart_never_takes_the_service_out_of_service() -> None:
    problems: list[str] = ["NATS does not answer"]
    other: list[str] = []

    def bus() -> Sequence[str]:
        return problems

    def broken() -> Sequence[str]:
        raise RuntimeError("a check with a bug")

    components = [
        Component(name="probe", services=[GrpcService(SERVICE, _add)], checks={BUS_HEALTH: bus}),
        Component(name="other", checks={BUS_HEALTH: lambda: other, "parlor.broken": broken}),
    ]
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    server = Server(settings, components, AUTH, health_interval=0.02)
    await server.start()
    target = f"127.0.0.1:{server.port}"
    try:
        assert await _status(target, "") == SERVING
        assert await _status(target, SERVICE) == SERVING, "readiness: it takes commands"
        assert await _status(target, BUS_HEALTH) == NOT_SERVING
        assert await _status(target, "parlor.broken") == NOT_SERVING
        assert _gauge(SERVICE) == 1
        assert _gauge(BUS_HEALTH) == 0
        problems.clear()
        await _until(target, BUS_HEALTH, SERVING)
        assert _gauge(BUS_HEALTH) == 1
        other.append("consumer scoring: fetch: ServiceUnavailableError")  # one of two checks
        await _until(target, BUS_HEALTH, NOT_SERVING)
        assert await _status(target, SERVICE) == SERVING
        assert (await server.check_health())[BUS_HEALTH] == [
            "consumer scoring: fetch: ServiceUnavailableError"
        ]
    finally:
        await server.stop()
    assert _gauge(SERVICE) == 0, "stopping: nothing is served"
    assert _gauge(BUS_HEALTH) == 0
