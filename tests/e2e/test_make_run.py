"""`make run` as a new user runs it: every service SERVING, reflection lists them, Ctrl-C stops all.

The platform is started with no PARLOR_DATABASE_URL / PARLOR_NATS_URL, so it
must start embedded PostgreSQL and NATS itself, and stop them on exit.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import psutil
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from parlor.devinfra.embedded import free_port

ROOT = Path(__file__).resolve().parents[2]
STANDARD = {"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"}

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _processes_using(path: Path) -> list[str]:
    found = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if str(path) in cmdline:
            found.append(f"{proc.info['pid']}: {cmdline}")
    return found


def _kill(found: list[str]) -> None:
    for entry in found:
        with contextlib.suppress(psutil.Error):
            psutil.Process(int(entry.split(":", 1)[0])).kill()


def _list_services(channel: grpc.Channel) -> set[str]:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    names: set[str] = set()
    for response in stub.ServerReflectionInfo(iter([request]), timeout=5):
        names |= {s.name for s in response.list_services_response.service}
    return names


def _stacks(pid: int) -> str:
    """What each process under ``pid`` is doing (py-spy's dump of its Python threads)."""
    try:
        processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return ""
    dumps = []
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            command = " ".join(process.cmdline())[:200]
            dump = subprocess.run(
                [str(Path(sys.executable).parent / "py-spy"), "dump", "--pid", str(process.pid)],
                capture_output=True,
                text=True,
                timeout=30,
            )
            dumps.append(f"=== {process.pid}: {command}\n{dump.stdout}{dump.stderr}")
    return "\n".join(dumps)


def _read(proc: subprocess.Popen[str], output: list[str], serving: threading.Event) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        output.append(line)
        if line.startswith("parlor: serving"):
            serving.set()


def _guest(web: str, address: str) -> int:
    """The status of a guest token asked through the web bridge by a browser at ``address``
    (as a proxy in front of the bridge would name it)."""
    ask = urllib.request.Request(
        f"{web}/api/parlor.identity.v1.IdentityService/IssueGuestToken",
        data=b"{}",
        headers={"content-type": "application/json", "x-forwarded-for": address},
    )
    try:
        with urllib.request.urlopen(ask, timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_make_run_serves_everything_and_stops_cleanly(
    tmp_path: Path, stop_signal: signal.Signals
) -> None:
    port = free_port()
    data_dir = tmp_path / "data"
    env = {
        k: v for k, v in os.environ.items() if k not in ("PARLOR_DATABASE_URL", "PARLOR_NATS_URL")
    }
    env.update(
        PARLOR_METRICS_PORT="0",
        PARLOR_WEB_PORT="0",  # 8080 by default; a free one here, beside other runs
        PARLOR_DATA_DIR=str(data_dir),
        PARLOR_LOG_FORMAT="text",
        MAKEFLAGS="",
        # an address's guest tokens refill slowly here: six asked on a loaded machine may
        # take over a second, and the default of one a second let the sixth through
        PARLOR_GUEST_PER_ADDRESS_PER_SECOND="0.05",
    )
    # One of the two runs shows its traces on the console, as docs/observability.md says.
    tracing = stop_signal == signal.SIGTERM
    if tracing:
        env["OTEL_TRACES_EXPORTER"] = "console"
        env["PARLOR_GRPC_PORT"] = str(port)
        arguments = []
    else:
        # The other one names its port as the README does, on the one worker's path (the
        # web bridge called the default port there, whatever --port said).
        env["PARLOR_WORKERS"] = "1"
        arguments = [f"PORT={port}"]
    started = time.monotonic()
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "run", *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    serving = threading.Event()
    # Read the whole output as it comes, in a thread: a pipe nobody reads fills up (64 KiB)
    # and blocks the platform's next write, its stop included.
    reader = threading.Thread(target=_read, args=(proc, output, serving), daemon=True)
    reader.start()
    try:
        while not serving.wait(0.2):
            if proc.poll() is not None:
                reader.join(5)
                pytest.fail("make run exited before serving:\n" + "".join(output))
        assert any("PostgreSQL (embedded)" in line for line in output), output
        assert any("NATS (embedded)" in line for line in output), output

        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            services = _list_services(channel) - STANDARD
            health = health_pb2_grpc.HealthStub(channel)
            for name in ["", *sorted(services)]:
                reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING, name
        assert time.monotonic() - started < 30 + 60  # 30 s to serve, plus a first install
        # the web client: its address printed, its page and the bridge answering there
        (web,) = [line.split()[-1] for line in output if line.startswith("parlor: web client on")]
        with urllib.request.urlopen(f"{web}/", timeout=5) as page:
            assert b"<title>Parlor</title>" in page.read()
        guest = urllib.request.Request(
            f"{web}/api/parlor.identity.v1.IdentityService/IssueGuestToken",
            data=b'{"displayName": "Ada"}',
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(guest, timeout=5) as reply:
            assert json.loads(reply.read())["playerId"].startswith("guest-")
        # Each browser has limits of its own: the services believe the address the bridge
        # names. One address's guest tokens run out (a burst of 5); another's are there.
        assert [_guest(web, "203.0.113.7") for _ in range(6)][-1] == 429
        assert _guest(web, "198.51.100.1") == 200
        assert _processes_using(data_dir), "embedded servers should be running"

        os.killpg(proc.pid, stop_signal)  # what Ctrl-C does to the foreground group
        # workers get their grace, then embedded NATS and PostgreSQL stop in order: on a
        # loaded 2-core machine that has taken over 30 s
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            pytest.fail(
                "make run did not stop within 90 s; still running:\n"
                + _stacks(proc.pid)
                + "\n".join(_processes_using(data_dir))
                + "\n--- its output, last 60 lines ---\n"
                + "".join(output[-60:])
            )
        reader.join(10)
        assert any(line.startswith("parlor: tracing on") for line in output) == tracing
        # each health check above was a span: "trace <id> span <id> parent <id> <ms> ms <name>"
        checks = [line for line in output if line.startswith("trace ") and "Health/Check" in line]
        assert len(checks) == (1 + len(services) if tracing else 0), output[-20:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _processes_using(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _processes_using(data_dir)
    _kill(left)  # the test fails on them, and leaves none behind (a SIGKILL'd run's servers)
    log = data_dir / "postgres" / "log"
    assert left == [], (
        left,
        "".join(output[-30:]),
        log.read_text()[-3000:] if log.exists() else "no PostgreSQL log",
    )
