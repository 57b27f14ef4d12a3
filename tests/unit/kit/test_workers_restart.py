"""The parent of ``--workers N`` replaces a worker that dies, gives up on one that cannot stay
up, and its workers do not outlive it (issue 38.5).

The workers here are small Python modules written for each test, started exactly as the
real ones are (``python -m <module> --worker-of <parent> ...``), so these run in seconds
without a database; tests/integration/test_workers.py does the same to real servers.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from parlor.kit.workers import RestartPolicy, Workers

FAST = RestartPolicy(first_delay_seconds=0.2, max_delay_seconds=0.8, limit=4, window_seconds=60)


def _workers(tmp_path: Path, body: str, count: int = 1) -> Workers:
    """Workers running ``body`` as module ``fake_worker`` (found through PYTHONPATH)."""
    (tmp_path / "fake_worker.py").write_text(textwrap.dedent(body))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return Workers("fake_worker", lambda i: [str(i)], count, env, 0, 0, 0.5, restart=FAST)


def stopped(process: psutil.Process, within: float) -> bool:
    """Whether ``process`` ends within ``within`` seconds: gone, or a zombie (an orphan's
    exit is reaped by whoever adopted it, whenever that gets to it)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_the_back_off_doubles_up_to_its_bound() -> None:
    policy = RestartPolicy()
    assert [policy.delay(n) for n in range(1, 8)] == [0.5, 1, 2, 4, 8, 10, 10]


def test_a_worker_that_dies_at_once_every_time_makes_the_parent_give_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workers = _workers(tmp_path, "import sys; sys.exit(3)")
    workers.start()
    started = time.monotonic()
    assert workers.wait() == 1
    took = time.monotonic() - started
    assert took >= 0.2 + 0.4 + 0.8  # the back-off: 0.2, 0.4, 0.8 s between the four starts
    err = capsys.readouterr().err
    assert err.count("exited with code 3; starting another") == 3
    assert "starting another in 0.2 s (1 of 4" in err
    assert "starting another in 0.8 s (3 of 4" in err
    assert "worker 0 died 4 times within 60 s, it cannot stay up; giving up" in err


def test_a_worker_whose_slow_start_ups_all_fail_still_makes_the_parent_give_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each start-up takes longer than the window / limit (as on a very busy machine), so
    the deaths are never ``limit`` within the window; none of its lives served, so they
    count in a row and the parent still gives up instead of restarting it for ever."""
    (tmp_path / "fake_worker.py").write_text("import sys, time; time.sleep(0.6); sys.exit(3)")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    slow = RestartPolicy(first_delay_seconds=0.1, max_delay_seconds=0.1, limit=4, window_seconds=1)
    workers = Workers("fake_worker", lambda i: [str(i)], 1, env, 0, 0, 0.5, restart=slow)
    workers.start()
    finished: list[int] = []
    thread = threading.Thread(target=lambda: finished.append(workers.wait()), daemon=True)
    thread.start()
    thread.join(30)
    if not finished:
        workers.on_signal(signal.SIGTERM, None)
        thread.join(30)
    assert finished == [1]
    err = capsys.readouterr().err
    assert "worker 0 died 4 times in a row without serving, it cannot stay up; giving up" in err


def test_a_worker_that_dies_is_replaced_and_the_others_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "died-once"
    workers = _workers(
        tmp_path,
        f"""
        import os, sys, time
        from parlor.kit.workers import die_with_parent
        die_with_parent(int(sys.argv[2]))
        if sys.argv[3] == "0" and not os.path.exists({str(marker)!r}):
            open({str(marker)!r}, "w").close()
            sys.exit(1)  # the first worker, the first time
        print("parlor: serving fake on port 1", flush=True)
        time.sleep(60)
        """,
        count=2,
    )
    workers.start()
    first, second = workers.processes
    finished: list[int] = []
    thread = threading.Thread(target=lambda: finished.append(workers.wait()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while workers.processes[0] is first and time.monotonic() < deadline:
        time.sleep(0.05)
    replacement = workers.processes[0]
    assert replacement is not first
    assert workers.processes[1] is second  # untouched
    assert second.poll() is None
    assert replacement.poll() is None
    workers.on_signal(signal.SIGTERM, None)
    thread.join(30)
    assert finished == [0]  # a clean stop: the dead one was replaced, not counted
    err = capsys.readouterr().err
    assert f"worker {first.pid} exited with code 1; starting another in 0.2 s" in err
    assert f"worker {replacement.pid} started in place of worker {first.pid}" in err


def test_a_worker_whose_parent_dies_exits_within_its_short_grace(tmp_path: Path) -> None:
    """The worker here ignores SIGTERM, as a server draining calls for its whole grace
    would not stop on it either: it must still be gone about a second after its parent."""
    (tmp_path / "orphan.py").write_text(
        textwrap.dedent(
            """
            import os, signal, subprocess, sys, time
            if sys.argv[1] == "parent":
                child = subprocess.Popen([sys.executable, __file__, "worker", str(os.getpid())])
                print(child.pid, flush=True)
                time.sleep(60)
            else:
                from parlor.kit.workers import die_with_parent
                signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a long drain
                die_with_parent(int(sys.argv[2]))
                time.sleep(60)
            """
        )
    )
    parent = subprocess.Popen(
        [sys.executable, str(tmp_path / "orphan.py"), "parent"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert parent.stdout is not None
        worker = psutil.Process(int(parent.stdout.readline()))
        time.sleep(1)  # the worker is up and watching
        parent.kill()
        parent.wait()
        started = time.monotonic()
        assert stopped(worker, within=3), "the worker outlived its parent by 3 s"
        assert time.monotonic() - started < 2
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
