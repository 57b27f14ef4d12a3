"""Where the tests find PostgreSQL and NATS JetStream.

Integration tests always run against real servers and are never skipped: if no
backend can be found the run fails and says why. Backends are found by
``parlor.devinfra.backends`` (settings, then servers already on this machine,
then embedded servers, then testcontainers where Docker runs).

Whatever the session makes on those servers (scratch databases, JetStream streams) is
named by ``parlor.devinfra.scratch`` after this run and removed when it ends, also on
Ctrl-C or SIGTERM. The session first sweeps what killed runs left hours ago, and at its
end lists what it made and fails if any of it is still there.

``make test`` runs the suite on several pytest-xdist workers, then the tests marked
``serial`` alone. Each worker is a session of its own: its own run of scratch names (so its
own databases, stream and subject prefix), its own embedded servers' data folder, its own
end-of-run check, which the controller gathers and reports. ``pytest`` alone runs
everything in one process, as before.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ("kits.platform",)  # start_platform and its fixtures, defined once

_ends: list[tuple[bool, list[str]]] = []  # the end-of-run check: (failed, report)
_ENDS_KEY = "parlor_scratch_ends"  # a worker's end-of-run checks, sent to the controller


def worker() -> str | None:
    """This pytest-xdist worker's id (``gw0``...), or None in a run without workers."""
    return os.environ.get("PYTEST_XDIST_WORKER")


def pytest_configure(config: pytest.Config) -> None:
    from parlor.devinfra.scratch import begin_run, interrupt_on_sigterm

    begin_run(Path(tempfile.gettempdir()) / "parlor-scratch")
    interrupt_on_sigterm()


def pytest_unconfigure(config: pytest.Config) -> None:
    from parlor.devinfra.scratch import end_run

    end_run()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """A worker is done (xdist, in the controller): its end-of-run checks join this run's."""
    for failed, lines in getattr(node, "workeroutput", {}).get(_ENDS_KEY, []):
        _ends.append((failed, [f"[{node.workerinput['workerid']}] {line}" for line in lines]))


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None]:
    result = yield  # the session's fixtures, ``backends`` last, are torn down in here
    if hasattr(session.config, "workeroutput"):
        return result  # a worker: its checks went to the controller, which says them
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for failed, lines in _ends:
        if reporter is not None:
            reporter.write_line("")  # ends the progress line
            reporter.write_sep("-", "left on PostgreSQL and NATS", red=failed, bold=failed)
            for line in lines:
                reporter.write_line(line, red=failed, bold=failed)
        if failed:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    return result


@pytest.fixture(scope="session")
def backends(request: pytest.FixtureRequest) -> Iterator[Backends]:
    from parlor.devinfra import scratch
    from parlor.devinfra.backends import DEFAULT_DATA_DIR, Backends, find_backends

    # embedded servers (where none run here) of this worker's own: a worker's end stops them
    with find_backends(data_dir=DEFAULT_DATA_DIR / (worker() or "")) as found:
        assert isinstance(found, Backends)
        try:
            swept = [str(s) for s in scratch.sweep(found.database_url, found.nats_url)]
        except Exception as exc:  # a failed sweep is no reason not to test; the check says so
            swept = [f"(the sweep failed: {type(exc).__name__}: {exc})"]
        yield found
        try:
            end = scratch.finish(scratch.current_run(), found.database_url, found.nats_url)
            lines = end.lines(every_name=request.config.get_verbosity() > 0)
            failed = not end.clean
        except Exception as exc:  # the servers went away: say so, never pass silently
            lines, failed = [f"scratch check could not run: {type(exc).__name__}: {exc}"], True
        if swept:
            lines += [f"swept {len(swept)} left-overs of earlier runs:", *(f"  {s}" for s in swept)]
        _ends.append((failed, lines))
        workeroutput = getattr(request.config, "workeroutput", None)
        if workeroutput is not None:  # a worker: the controller reports (and fails) for it
            workeroutput[_ENDS_KEY] = [*workeroutput.get(_ENDS_KEY, []), (failed, lines)]


@pytest.fixture(autouse=True)
def _runtime_dir() -> Iterator[None]:
    """A runtime folder (``XDG_RUNTIME_DIR``) of each test's own, short, that anyone may cross.

    An embedded PostgreSQL puts its socket there when its data folder's path is too long for a
    Unix socket's (a worker's tmp_path is ``.../popen-gw0/...``), and otherwise sets it for
    the whole process beside its data, where the next test's server (as root, run by another
    user) could not reach it: ``could not open lock file ... Permission denied``."""
    before = os.environ.get("XDG_RUNTIME_DIR")
    folder = tempfile.mkdtemp(prefix="parlor-run-")
    os.chmod(folder, 0o711)
    os.environ["XDG_RUNTIME_DIR"] = folder
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = before
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def database_url(backends: Backends) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this test session (dropped afterwards)."""
    from parlor.devinfra.backends import scratch_database
    from parlor.devinfra.scratch import scratch_name

    with scratch_database(backends.database_url, scratch_name("test")) as url:
        yield url


@pytest.fixture(scope="session")
def nats_url(backends: Backends) -> str:
    return backends.nats_url


@pytest.fixture
def unique() -> str:
    """A short unique token, for stream ids and NATS names that must not collide."""
    return uuid.uuid4().hex[:12]


@pytest.fixture
def scratch_stream_name() -> str:
    """A JetStream stream name of this run's (tests delete the stream; the run's end checks)."""
    from parlor.devinfra.scratch import scratch_name

    return scratch_name("test", "stream")


if os.environ.get("CI"):
    os.environ.setdefault("PARLOR_REQUIRE_BACKENDS", "1")

if False:  # pragma: no cover - for type checkers only
    from parlor.devinfra.backends import Backends
