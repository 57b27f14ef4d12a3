"""N worker processes serving one gRPC port (``--workers N`` / ``PARLOR_WORKERS``).

Python runs one core per process, so to use every core the parent starts N children,
each an ordinary replica (``parlor-serve --worker-of <parent> NAME...``) that binds the
same port with ``SO_REUSEPORT`` (``parlor-platform``'s are ``parlor-platform
--worker-of <parent> --only NAME...``); the kernel spreads new connections over them. Nothing
is shared between them but PostgreSQL and NATS, exactly as between the replicas of a
Kubernetes Deployment: a watcher on one worker hears of a move made on another through
the bus, each relay has one leader among all processes (its lease), and a game host's cache is
re-read when an append finds it stale.

The parent serves nothing itself. It prints the children's output, and prints
``parlor: serving ... on port P (N workers)`` once all of them serve. SIGINT or SIGTERM
is passed on to every child, which drains its calls; one that has not stopped after
its grace is killed. A worker that dies on its own is reported on stderr, the others
are stopped, and the parent exits 1: like a failed background task, a dead worker
stops the whole server, so that a supervisor (``make run``'s user, Kubernetes) sees it
rather than a server quietly running on fewer cores. Children die with the parent
(``PR_SET_PDEATHSIG`` on Linux), so a killed parent leaves none behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence

SERVING = "parlor: serving"
_PR_SET_PDEATHSIG = 1


def default_count() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def die_with_parent(parent: int) -> None:
    """In a worker: be sent SIGTERM when the parent dies; exit now if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        raise SystemExit(f"parlor: worker's parent {parent} is gone")


def shared_port(host: str, port: int) -> int:
    """``port``, or a free one if it is 0: every worker must be told the same number."""
    if port:
        return port
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host if host not in ("", "0.0.0.0") else "0.0.0.0", 0))
        return int(s.getsockname()[1])


class Workers:
    """Starts, watches and stops the worker processes."""

    def __init__(
        self,
        module: str,
        arguments: Callable[[int], Sequence[str]],
        count: int,
        env: Mapping[str, str],
        port: int,
        metrics_port: int,
        grace_seconds: float,
    ) -> None:
        self.module = module
        self.arguments = arguments
        self.count = count
        self.env = dict(env)
        self.port = port
        self.metrics_port = metrics_port
        self.grace = grace_seconds
        self.processes: list[subprocess.Popen[str]] = []
        self._ready: set[int] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._signalled = False

    def on_signal(self, signum: int, frame: object) -> None:
        """SIGINT or SIGTERM: stop. A signal handler runs in the main thread between two of
        its steps, perhaps while that thread holds a lock (inside ``Event.wait``, say), so it
        only sets a flag: taking a lock here could wait on itself forever."""
        self._signalled = True

    def command(self, index: int) -> list[str]:
        worker = [sys.executable, "-m", self.module, "--worker-of", str(os.getpid())]
        return [*worker, *self.arguments(index)]

    def start(self) -> None:
        for index in range(self.count):
            env = {
                **self.env,
                "PARLOR_WORKERS": str(self.count),
                "PARLOR_GRPC_PORT": str(self.port),
                # one /metrics endpoint per worker: port, port + 1, ... (0 stays off)
                "PARLOR_METRICS_PORT": str(self.metrics_port + index if self.metrics_port else 0),
            }
            process = subprocess.Popen(
                self.command(index),
                env=env,
                stdout=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
            self.processes.append(process)
        for process in self.processes:
            threading.Thread(target=self._relay, args=(process,), daemon=True).start()

    def _relay(self, process: subprocess.Popen[str]) -> None:
        """Pass a worker's output on; announce the server once every worker serves."""
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith(SERVING):
                with self._lock:
                    self._ready.add(process.pid)
                    if len(self._ready) == self.count:
                        rest = line.rstrip("\n").removeprefix(SERVING)
                        print(f"{SERVING}{rest} ({self.count} workers)", flush=True)
                continue
            sys.stdout.write(line)
            sys.stdout.flush()

    def stop(self) -> None:
        """SIGTERM to every worker still running; kill those still there after the grace."""
        self._stopping.set()
        for process in self.processes:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.grace + 15
        for process in self.processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(f"parlor: worker {process.pid} did not stop; killing it", file=sys.stderr)
                process.kill()
                process.wait()

    def wait(self) -> int:
        """Until a signal (then 0 if every worker stopped cleanly) or a worker dies (then 1)."""
        while not (self._signalled or self._stopping.is_set()):
            for process in self.processes:
                code = process.poll()
                if code is not None and not (self._signalled or self._stopping.is_set()):
                    how = f"signal {-code}" if code < 0 else f"code {code}"
                    print(
                        f"parlor: worker {process.pid} exited with {how};"
                        " stopping the other workers",
                        file=sys.stderr,
                        flush=True,
                    )
                    self.stop()
                    return 1
            time.sleep(0.2)  # a signal's handler runs here; the loop sees its flag
        self.stop()
        return 0 if all(p.returncode in (0, -signal.SIGTERM) for p in self.processes) else 1


def run_workers(
    module: str,
    arguments: Callable[[int], Sequence[str]],
    count: int,
    host: str,
    port: int,
    metrics_port: int,
    grace_seconds: float,
    env: Mapping[str, str] | None = None,
) -> int:
    """``python -m module --worker-of <us> arguments(i)...`` for i < ``count``, until a signal
    or one of them dies (the module serves on the port it is given, sharing it)."""
    workers = Workers(
        module,
        arguments,
        count,
        os.environ if env is None else env,
        shared_port(host, port),
        metrics_port,
        grace_seconds,
    )
    previous = {
        sig: signal.signal(sig, workers.on_signal) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        workers.start()
        return workers.wait()
    finally:
        workers.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
