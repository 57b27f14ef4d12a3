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
its grace is killed.

A worker that dies on its own is replaced, as a supervisor (gunicorn's arbiter, uvicorn's)
replaces one: the others go on serving, so one crash costs the calls of one process, not the
server. The replacement starts after a back-off (``RestartPolicy``: 0.5 s, doubling with
each death of that worker within a minute, at most 10 s) so a worker that cannot start does
not spin; one that dies ``limit`` times (5) within the minute is crash-looping (a bad
setting, a port it cannot bind, a bug at start-up), and the parent gives up: it says so on
stderr, stops the other workers and exits 1, so that whoever runs it (``make run``'s user,
Kubernetes) sees the failure rather than a server that restarts for ever.

Children die with the parent: ``PR_SET_PDEATHSIG`` on Linux sends a worker SIGTERM the
moment its parent dies, and each worker watches its parent (``die_with_parent``): when it is
gone the worker starts to drain and exits within ``PARENT_GONE_GRACE_SECONDS`` whatever is in
flight, since nothing will stop, restart or read it any more (a parent killed with -9 used
to leave its workers draining for their whole grace).
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
from dataclasses import dataclass

SERVING = "parlor: serving"
_PR_SET_PDEATHSIG = 1
PARENT_GONE_GRACE_SECONDS = 1.0
"""How long a worker whose parent died may drain before it exits anyway."""
PARENT_POLL_SECONDS = 0.2


@dataclass(frozen=True)
class RestartPolicy:
    """When a dead worker is replaced, and when the parent gives up instead.

    A worker's n-th death within ``window_seconds`` is followed by a replacement after
    ``first_delay_seconds`` * 2^(n-1) (at most ``max_delay_seconds``); its ``limit``-th
    ends the server (exit 1). Deaths further back are forgotten, so a worker that dies once a
    day is replaced every time, at once; but not while it has not served since: a worker
    whose every start-up fails, however slowly (a machine busy enough that one start-up
    takes longer than the window / ``limit``), still ends the server at its ``limit``-th
    death in a row.
    """

    first_delay_seconds: float = 0.5
    max_delay_seconds: float = 10.0
    limit: int = 5
    window_seconds: float = 60.0

    def delay(self, deaths: int) -> float:
        """The pause before the replacement of a worker that died ``deaths`` times lately."""
        return float(min(self.max_delay_seconds, self.first_delay_seconds * 2 ** (deaths - 1)))


def default_count() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def die_with_parent(parent: int, grace_seconds: float = PARENT_GONE_GRACE_SECONDS) -> None:
    """In a worker: stop within ``grace_seconds`` of the parent's death; exit now if it is
    already gone.

    ``PR_SET_PDEATHSIG`` (Linux) has SIGTERM sent at once, which starts the server's drain;
    but the drain may take the server's whole grace, and no signal comes on other systems,
    so a daemon thread also watches for the parent to change (an orphan is re-parented) and
    then ends the process after ``grace_seconds``, drained or not: with the parent gone there
    is no one to print its output, restart it or stop it, and a client is better served by a
    worker that is gone (its connection fails, it reconnects to a live one) than by one
    draining without end.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        raise SystemExit(f"parlor: worker's parent {parent} is gone")
    threading.Thread(
        target=_watch_parent, args=(parent, grace_seconds), name="parent-watch", daemon=True
    ).start()


def _watch_parent(parent: int, grace_seconds: float) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    with contextlib.suppress(OSError, ValueError):
        print(
            f"parlor: worker {os.getpid()}: parent {parent} is gone; stopping",
            file=sys.stderr,
            flush=True,
        )
    with contextlib.suppress(ProcessLookupError):
        os.kill(os.getpid(), signal.SIGTERM)  # the drain, if PR_SET_PDEATHSIG did not start it
    time.sleep(grace_seconds)
    os._exit(1)


def shared_port(host: str, port: int) -> int:
    """``port``, or a free one if it is 0: every worker must be told the same number."""
    if port:
        return port
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host if host not in ("", "0.0.0.0") else "0.0.0.0", 0))
        return int(s.getsockname()[1])


class Workers:
    """Starts, watches, replaces and stops the worker processes."""

    def __init__(
        self,
        module: str,
        arguments: Callable[[int], Sequence[str]],
        count: int,
        env: Mapping[str, str],
        port: int,
        metrics_port: int,
        grace_seconds: float,
        restart: RestartPolicy | None = None,
    ) -> None:
        self.module = module
        self.arguments = arguments
        self.count = count
        self.env = dict(env)
        self.port = port
        self.metrics_port = metrics_port
        self.grace = grace_seconds
        self.restart = restart or RestartPolicy()
        self.processes: list[subprocess.Popen[str]] = []
        """Worker i's current process (a dead one until its replacement starts)."""
        self._deaths: list[list[float]] = [[] for _ in range(count)]
        self._due: dict[int, float] = {}  # worker index -> when its replacement starts
        self._ready: set[int] = set()
        self._served = [False] * count
        """Whether worker i's current process has said it serves."""
        self._announced = False
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
            self.processes.append(self._spawn(index))

    def _spawn(self, index: int) -> subprocess.Popen[str]:
        """Worker ``index``'s process, started, its output passed on. Only ever called from
        the main thread: ``PR_SET_PDEATHSIG`` fires when the thread that started the child
        ends, so a child started from a passing thread would be killed with it."""
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
        threading.Thread(target=self._relay, args=(index, process), daemon=True).start()
        return process

    def _relay(self, index: int, process: subprocess.Popen[str]) -> None:
        """Pass a worker's output on; announce the server once every worker serves, and a
        replacement once it serves."""
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith(SERVING):
                with self._lock:
                    self._served[index] = True
                    if self._announced:
                        print(f"parlor: worker {process.pid} serves again", flush=True)
                        continue
                    self._ready.add(index)
                    if len(self._ready) == self.count:
                        self._announced = True
                        rest = line.rstrip("\n").removeprefix(SERVING)
                        print(f"{SERVING}{rest} ({self.count} workers)", flush=True)
                continue
            sys.stdout.write(line)
            sys.stdout.flush()

    def stop(self) -> None:
        """SIGTERM to every worker still running; kill those still there after the grace."""
        self._stopping.set()
        self._due.clear()
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
        """Until a signal (then 0 if every worker running stopped cleanly) or a worker that
        crash-loops (then 1); a worker that dies meanwhile is replaced."""
        while not (self._signalled or self._stopping.is_set()):
            if not self._supervise(time.monotonic()):
                self.stop()
                return 1
            time.sleep(0.1)  # a signal's handler runs here; the loop sees its flag
        running = [p for p in self.processes if p.poll() is None]
        self.stop()
        return 0 if all(p.returncode in (0, -signal.SIGTERM) for p in running) else 1

    def _supervise(self, now: float) -> bool:
        """Replace the workers that died and whose back-off is over; False to give up."""
        for index, process in enumerate(self.processes):
            if self._signalled:
                return True
            due = self._due.get(index)
            if due is not None:
                if now >= due:
                    del self._due[index]
                    with self._lock:
                        self._served[index] = False
                    self.processes[index] = self._spawn(index)
                    print(
                        f"parlor: worker {self.processes[index].pid} started"
                        f" in place of worker {process.pid}",
                        file=sys.stderr,
                        flush=True,
                    )
                continue
            code = process.poll()
            if code is None:
                continue
            window = self.restart.window_seconds
            with self._lock:
                served = self._served[index]
            earlier = self._deaths[index]
            if served:  # it served since: deaths older than the window are forgotten
                earlier = [t for t in earlier if now - t < window]
            deaths = [*earlier, now]
            self._deaths[index] = deaths
            how = f"signal {-code}" if code < 0 else f"code {code}"
            if len(deaths) >= self.restart.limit:
                span = (
                    f"within {window:g} s"
                    if now - deaths[0] < window
                    else "in a row without serving"
                )
                print(
                    f"parlor: worker {process.pid} exited with {how}: worker {index} died"
                    f" {len(deaths)} times {span}, it cannot stay up; giving up,"
                    " stopping the other workers (see its output above)",
                    file=sys.stderr,
                    flush=True,
                )
                return False
            delay = self.restart.delay(len(deaths))
            print(
                f"parlor: worker {process.pid} exited with {how}; starting another in"
                f" {delay:g} s ({len(deaths)} of {self.restart.limit} deaths allowed"
                f" within {window:g} s)",
                file=sys.stderr,
                flush=True,
            )
            self._due[index] = now + delay
        return True


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
    or one of them crash-loops (the module serves on the port it is given, sharing it); one
    that dies is replaced (``RestartPolicy``)."""
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
