"""The image's command, run here outside a container: ``parlor-serve NAME`` with the
environment its Deployment in the dev overlay gives it (backends swapped for the test
session's PostgreSQL and NATS, ports for free ones) answers gRPC health SERVING for the
server and for the service its readiness probe names, and drains on SIGTERM.

Every installed service is started; services that need PostgreSQL and NATS get a scratch
database on the session's server (``backends``) and the ``nats_url``, after the migration
their init container runs (twice: it must be safe to repeat).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import grpc
import pytest
from deploy_facts import (
    PLANNED_SERVICES,
    environment,
    of_kind,
    parlor_container,
    rendered,
    service_distributions,
    settings_needed,
    tool,
)
from grpc_health.v1 import health_pb2, health_pb2_grpc

from parlor.devinfra.embedded import free_ports
from parlor.devinfra.scratch import scratch_name, scratch_stream

INSTALLED = sorted(
    ep.name for ep in entry_points(group="parlor.services") if ep.name in PLANNED_SERVICES
)
START_SECONDS = 90


def manifest_environment(name: str) -> tuple[dict[str, str], dict[str, Any]]:
    """The PARLOR_* variables the dev Deployment sets, resolved, and the Deployment."""
    objects = rendered("dev")
    deployment = of_kind(objects, "Deployment")[name]
    env = environment(parlor_container(deployment), objects, "dev")
    return {k: str(v.value) for k, v in env.items() if k.startswith("PARLOR_")}, deployment


def health(port: int, service: str) -> int:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
        return int(reply.status)


def wait_serving(process: subprocess.Popen[str], port: int, service: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited {process.returncode}:\n{process.communicate()[0]}")
        try:
            if health(port, service) == health_pb2.HealthCheckResponse.SERVING:
                return
        except grpc.RpcError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"not SERVING within {START_SECONDS} s")


@pytest.fixture
def started(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    name: str = request.param
    env, deployment = manifest_environment(name)
    pod = deployment["spec"]["template"]["spec"]
    grpc_port, metrics_port = free_ports(2)
    env |= {
        "PARLOR_GRPC_HOST": "127.0.0.1",
        "PARLOR_GRPC_PORT": str(grpc_port),
        "PARLOR_METRICS_PORT": str(metrics_port),
        "PARLOR_LOG_FORMAT": "text",
    }
    stack = contextlib.ExitStack()
    if "PARLOR_DATABASE_URL" in env:
        # a database of its own: the session's database_url is kept empty for other tests
        from parlor.devinfra.backends import scratch_database

        server = request.getfixturevalue("backends").database_url
        name_db = scratch_name("test")
        env["PARLOR_DATABASE_URL"] = stack.enter_context(scratch_database(server, name_db))
    if "PARLOR_NATS_URL" in env:
        env["PARLOR_NATS_URL"] = request.getfixturevalue("nats_url")
        # a stream of its own, deleted afterwards: never the dev overlay's PARLOR_EVENTS
        stream, prefix = stack.enter_context(scratch_stream(env["PARLOR_NATS_URL"], "test"))
        env |= {"PARLOR_NATS_STREAM": stream, "PARLOR_NATS_SUBJECT_PREFIX": prefix}
    base = {k: v for k, v in os.environ.items() if not k.startswith("PARLOR_")}
    for init in pod.get("initContainers", ()):
        command = [tool(init["command"][0]), *init["command"][1:], *init.get("args", ())]
        for _ in range(2):  # safe to run twice
            done = subprocess.run(
                command, env=base | env, capture_output=True, text=True, timeout=120, check=False
            )
            assert done.returncode == 0, f"{init['name']}: {done.stderr}"
    args = parlor_container(deployment)["args"]
    process = subprocess.Popen(
        [tool("parlor-serve"), *args],
        env=base | env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    info = {"grpc": grpc_port, "metrics": metrics_port, "deployment": deployment, "name": name}
    try:
        yield process, info
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        stack.close()


def needs_backends(name: str) -> bool:
    """From the code, not the manifests: collecting tests must not need kubectl."""
    needed = settings_needed(name) if name in service_distributions() else {}
    return "PARLOR_DATABASE_URL" in needed or "PARLOR_NATS_URL" in needed


PARAMS = [
    pytest.param(
        n, marks=[pytest.mark.integration, pytest.mark.slow] if needs_backends(n) else [], id=n
    )
    for n in INSTALLED
]


def test_the_services_that_can_start_here_include_the_dictionary() -> None:
    assert "dictionary" in INSTALLED


@pytest.mark.parametrize("started", PARAMS, indirect=True)
def test_parlor_serve_answers_health_serving_and_drains_on_sigterm(
    started: tuple[subprocess.Popen[str], dict[str, Any]],
) -> None:
    process, info = started
    container = parlor_container(info["deployment"])
    readiness = container["readinessProbe"]["grpc"].get("service", "")
    wait_serving(process, info["grpc"], readiness)
    assert health(info["grpc"], "") == health_pb2.HealthCheckResponse.SERVING  # liveness
    with urllib.request.urlopen(f"http://127.0.0.1:{info['metrics']}/metrics", timeout=5) as reply:
        assert reply.status == 200
    process.send_signal(signal.SIGTERM)
    grace = info["deployment"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    output, _ = process.communicate(timeout=grace)
    assert process.returncode == 0, output
