"""What the process-based benchmarks share: a server in its own process, its CPU time, failing fast.

- ``ServerProcess``: ``parlor-platform --only ... --workers N`` (or any command) in a process
  of its own, ready once it prints ``parlor: serving``; its CPU time (its own and its
  children's, read with psutil from /proc) is what the CPU figures divide by the calls.
- ``guarded``: run the load while watching the server; if it dies the run fails at once
  with the end of its output, instead of waiting for calls that can no longer succeed.
  A load helper process that dies breaks its ``ProcessPoolExecutor`` at once too
  (``BrokenProcessPool``), and its traceback is on stderr, which ``run_all.py`` keeps.
- ``QUICK``: ``--quick`` on the command line or ``PARLOR_BENCH_QUICK=1`` (``run_all.py
  --quick``): the same measurements, briefly.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import psutil

from parlor.kit.auth import AuthSettings, generate_private_key

T = TypeVar("T")

QUICK = "--quick" in sys.argv or os.environ.get("PARLOR_BENCH_QUICK", "") not in ("", "0")
KEY = os.environ.setdefault("PARLOR_BENCH_KEY", generate_private_key())
"""The identity key this run signs with: made once, inherited by helper processes."""
AUTH = AuthSettings(private_key=KEY)


def pct(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def program(name: str) -> str:
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else name


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and every process under it, so far."""
    root = psutil.Process(pid)
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = proc.cpu_times()
            total += times.user + times.system
    return total


REPORTS = Path(os.environ.get("PARLOR_BENCH_REPORT_DIR", Path(__file__).parent / "reports"))
"""Where benchmarks write their reports and profiles."""


def profile(pid: int, slug: str, rate: int = 250) -> subprocess.Popen[bytes]:
    """py-spy recording process ``pid`` (and its workers) until sent SIGINT, into
    ``REPORTS/profile-<slug>.txt`` (collapsed stacks, for ``flamegraph.pl`` or speedscope)."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            *(program("py-spy"), "record", "--pid", str(pid), "--subprocesses"),
            *("--rate", str(rate), "--format", "raw", "--nonblocking"),
            *("--output", str(REPORTS / f"profile-{slug}.txt")),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def platform_env(settings: dict[str, str], port: int) -> dict[str, str]:
    """The environment of a benchmark's platform: its scratch backends, no rate limit, no
    cap on a player's open games."""
    return {
        **os.environ,
        **settings,
        "PARLOR_GRPC_HOST": "127.0.0.1",
        "PARLOR_GRPC_PORT": str(port),
        "PARLOR_METRICS_PORT": "0",
        "PARLOR_DICTIONARY_TARGET": f"127.0.0.1:{port}",
        "PARLOR_JWT_PRIVATE_KEY": KEY,
        "PARLOR_RATE_LIMIT_PER_SECOND": "0",
        # a benchmark's players create their games before its window, more than 20 at once
        "PARLOR_MAX_OPEN_GAMES_PER_PLAYER": "0",
        # every player of the load comes from 127.0.0.1: no cap on one address's streams
        "PARLOR_MAX_STREAMS_PER_ADDRESS": "0",
        "PARLOR_MATCHMAKING_ROUND_SECONDS": "0.2",
        "PARLOR_LOG_LEVEL": "WARNING",
        "PARLOR_SHUTDOWN_GRACE_SECONDS": "3",
    }


class ServerDied(RuntimeError):
    """The server process ended during the run; the message holds the end of its output."""


class ServerProcess:
    """A command serving gRPC in a process of its own, its output kept for the report."""

    def __init__(self, command: Sequence[str], env: dict[str, str], port: int) -> None:
        self.command = list(command)
        self.env = env
        self.port = port
        self.target = f"127.0.0.1:{port}"
        self.output: collections.deque[str] = collections.deque(maxlen=60)
        self.process: subprocess.Popen[str] | None = None
        self._ready = threading.Event()

    @classmethod
    def platform(
        cls, settings: dict[str, str], services: Sequence[str], workers: int = 1
    ) -> ServerProcess:
        port = free_port()
        command = [
            program("parlor-platform"),
            "--workers",
            str(workers),
            "--only",
            *services,
        ]
        return cls(command, platform_env(settings, port), port)

    def _read(self) -> None:
        assert self.process is not None
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            if line.startswith("parlor: serving"):
                self._ready.set()

    def tail(self) -> str:
        return "".join(self.output)[-3000:]

    def died(self) -> ServerDied | None:
        if self.process is None or self.process.poll() is None:
            return None
        return ServerDied(
            f"{Path(self.command[0]).name} {' '.join(self.command[1:])} exited with code"
            f" {self.process.returncode}; its last output:\n{self.tail()}"
        )

    async def __aenter__(self) -> ServerProcess:
        self.process = subprocess.Popen(  # noqa: ASYNC220 (starting it does not block)
            self.command,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 180
        while not self._ready.is_set():
            error = self.died()
            if error:
                raise error
            if time.monotonic() > deadline:
                raise ServerDied(f"not serving after 180 s; its output:\n{self.tail()}")
            await asyncio.sleep(0.1)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(self.process.wait, 30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            await asyncio.to_thread(self.process.wait)

    @classmethod
    def echo(cls) -> ServerProcess:
        """A bare grpc.aio unary echo (no interceptors, no auth): the floor of a call's CPU."""
        port = free_port()
        return cls([sys.executable, __file__, "echo", str(port)], dict(os.environ), port)

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server and every process under it, so far."""
        assert self.process is not None
        return tree_cpu_seconds(self.process.pid)

    async def idle_cpu_rate(self, seconds: float) -> float:
        """CPU seconds per second the server spends with no calls (relays polling, timers)."""
        before = self.cpu_seconds()
        await asyncio.sleep(seconds)
        return (self.cpu_seconds() - before) / seconds

    async def _watch(self) -> None:
        while True:
            error = self.died()
            if error:
                raise error
            await asyncio.sleep(0.2)

    async def guarded(self, work: Awaitable[T]) -> T:
        """``work``, failed at once with the server's output if the server dies meanwhile."""
        task = asyncio.ensure_future(work)
        watch = asyncio.create_task(self._watch())
        try:
            done, _ = await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
            if watch in done:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                watch.result()
            return task.result()
        finally:
            watch.cancel()
            await asyncio.gather(watch, return_exceptions=True)


ECHO = "/bench.Echo/Echo"


async def serve_unary(
    service: str, method: str, handler: Callable[[bytes, Any], Awaitable[bytes]], port: int
) -> None:
    """A bare grpc.aio server of one unary method on raw bytes (no interceptors), until
    SIGTERM or SIGINT; ``parlor: serving`` once it does."""
    import grpc

    server = grpc.aio.server()
    generic = grpc.method_handlers_generic_handler(
        service, {method: grpc.unary_unary_rpc_method_handler(handler)}
    )
    server.add_generic_rpc_handlers((generic,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"parlor: serving {service} on port {port}", flush=True)
    await until_signalled()
    await server.stop(None)


async def until_signalled() -> None:
    """Return at SIGTERM or SIGINT: how a helper server of a benchmark waits to stop."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def _echo(request: bytes, context: object) -> bytes:
    return request


if __name__ == "__main__" and sys.argv[1:2] == ["echo"]:
    asyncio.run(serve_unary("bench.Echo", "Echo", _echo, int(sys.argv[2])))
