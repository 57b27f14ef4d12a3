"""The sweeper and the end-of-run check on the real, shared PostgreSQL and NATS.

Other runs may be going on beside this one: every assertion is about names this test
made, and the sweep only ever takes stale names of Parlor's tests and benchmarks.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nats
import psycopg
import pytest

from parlor.devinfra import scratch
from parlor.devinfra.backends import Backends, with_database
from parlor.devinfra.scratch import Run

pytestmark = pytest.mark.integration


@contextlib.contextmanager
def databases(backends: Backends, *names: str) -> Iterator[None]:
    with psycopg.connect(backends.database_url, autocommit=True) as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield
    finally:
        with psycopg.connect(backends.database_url, autocommit=True) as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.asynccontextmanager
async def jetstream(nats_url: str) -> AsyncIterator[nats.js.JetStreamContext]:
    nc = await nats.connect(nats_url)
    try:
        yield nc.jetstream()
    finally:
        await nc.close()


def names_on_servers(backends: Backends) -> set[str]:
    found = scratch.databases(backends.database_url) + scratch.streams(backends.nats_url)
    return {f.name for f in found}


@pytest.mark.serial  # a sweep is of the whole servers: another session's start sweeps too
async def test_the_sweep_takes_stale_left_overs_of_ours_and_nothing_in_use(
    backends: Backends,
) -> None:
    old = Run.new(datetime.now(UTC) - timedelta(hours=5))
    gone_db, held_db = old.name("test"), old.name("bench")
    young_db, legacy_db = scratch.current_run().name("test"), f"parlor_test_{secrets.token_hex(5)}"
    gone_stream, live_stream = old.name("test", "stream"), old.name("bench", "stream")
    bucket, young_stream = old.name("test", "stream"), scratch.current_run().name("test", "stream")
    consumer, foreign = old.name("test", "stream"), "NOT" + old.name("test", "stream")
    streams = [gone_stream, live_stream, young_stream, foreign]
    ours = {gone_db, held_db, young_db, legacy_db, *streams, f"KV_{bucket}", consumer}
    with databases(backends, gone_db, held_db, young_db, legacy_db):
        async with jetstream(backends.nats_url) as js:
            try:
                for name in streams:
                    await js.add_stream(name=name, subjects=[f"{name.lower()}.>"])
                await js.publish(f"{live_stream.lower()}.x", b"a run is still using it")
                await js.create_key_value(bucket=bucket)
                await js.add_consumer(young_stream, durable_name=consumer)
                with psycopg.connect(with_database(backends.database_url, held_db)):
                    gone = scratch.sweep(backends.database_url, backends.nats_url)
                    left = names_on_servers(backends)
                consumers = {c.name for c in await js.consumers_info(young_stream)}
            finally:
                for name in [*streams, f"KV_{bucket}"]:
                    with contextlib.suppress(nats.js.errors.NotFoundError):
                        await js.delete_stream(name)

    swept = {f.name for f in gone} & ours
    assert swept == {gone_db, gone_stream, f"KV_{bucket}", consumer}
    assert left & ours == ours - swept
    assert consumer not in consumers, "the stale consumer went, its young stream stayed"


async def test_the_end_of_run_check_lists_and_removes_what_its_run_left(
    backends: Backends,
) -> None:
    run = Run.new()
    database, stream = run.name("test"), run.name("test", "stream")
    with databases(backends, database):
        async with jetstream(backends.nats_url) as js:
            await js.add_stream(name=stream, subjects=[f"{stream.lower()}.>"])
            try:
                end = scratch.finish(run, backends.database_url, backends.nats_url)
            finally:
                with contextlib.suppress(nats.js.errors.NotFoundError):
                    await js.delete_stream(stream)
    assert not end.clean
    assert {(f.resource, f.name) for f in end.left} == {("database", database), ("stream", stream)}
    assert "LEFT BEHIND" in end.lines()[0]
    assert any(database in line for line in end.lines())
    assert scratch.on_servers(run, backends.database_url, backends.nats_url) == []
    assert scratch.finish(run, backends.database_url, backends.nats_url).clean


def test_a_scratch_stream_is_deleted_when_its_block_ends(backends: Backends) -> None:
    async def make(name: str) -> None:
        async with jetstream(backends.nats_url) as js:
            await js.add_stream(name=name, subjects=[f"{name.lower()}.>"])

    with scratch.scratch_stream(backends.nats_url, "test") as (stream, prefix):
        assert prefix == f"{stream.lower()}.events"
        asyncio.run(make(stream))
        assert stream in names_on_servers(backends)
    assert stream not in names_on_servers(backends)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_process_still_drops_its_scratch_database(
    backends: Backends, stop: signal.Signals
) -> None:
    child = textwrap.dedent(
        f"""
        import signal, sys, time
        from parlor.devinfra.backends import scratch_database
        from parlor.devinfra.scratch import interrupt_on_sigterm, scratch_name
        interrupt_on_sigterm()
        # Ctrl-C's handler, which Python leaves out where SIGINT came ignored (a test run
        # started as a background job): this child stands for a run in a terminal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        name = scratch_name("test")
        with scratch_database({backends.database_url!r}, name):
            print(name, flush=True)
            time.sleep(60)
        """
    )
    with subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        name = proc.stdout.readline().strip()
        assert scratch.current_run().owns(name), "the child joined this run"
        assert name in names_on_servers(backends)
        proc.send_signal(stop)
        proc.wait(timeout=30)
    assert name not in names_on_servers(backends)


LEAKY = """
import psycopg
from parlor.devinfra.scratch import scratch_name


def test_that_forgets_its_database(backends):
    with psycopg.connect(backends.database_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{scratch_name("test")}"')


def test_that_cleans_up(database_url):
    assert database_url
"""

PYTEST = [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q"]


@pytest.mark.slow
def test_a_session_that_leaves_something_fails_and_says_what(
    backends: Backends, tmp_path: Path
) -> None:
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARLOR_SCRATCH")}
    env |= {
        "PARLOR_DATABASE_URL": backends.database_url,
        "PARLOR_NATS_URL": backends.nats_url,
        "PYTHONPATH": str(Path(__file__).parents[1]),  # tests/conftest.py, as a plugin
    }
    for selected, code in [("cleans", 0), ("forgets or cleans", 1)]:
        done = subprocess.run(
            [*PYTEST, "-k", selected, "test_leaky.py"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == code, done.stdout + done.stderr
    (left,) = re.findall(r"database (parlor_test_\S+)", done.stdout)
    assert "LEFT BEHIND (now removed) 1:" in done.stdout
    assert re.search(r"made 2 databases", done.stdout), done.stdout
    assert left not in names_on_servers(backends)
