"""Scratch names carry their run's time, and only stale names of ours are ever swept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from parlor.devinfra import scratch
from parlor.devinfra.scratch import Found, Run, stale

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)
HOURS = timedelta(hours=3)


def test_a_name_carries_the_run_time_and_token_and_only_its_run_owns_it() -> None:
    run = Run.new(NOW - timedelta(minutes=5))
    database, stream = run.name("test"), run.name("bench", "stream")
    assert database.startswith(f"parlor_test_20261201115500_{run.token}_")
    assert stream.startswith(f"PARLOR_BENCH_20261201115500_{run.token}_")
    assert Run.parse(run.stamp) == run
    assert run.owns(database)
    assert run.owns(stream)
    assert not Run.new(NOW).owns(database)
    assert not run.owns("parlor_test_0123456789")


def test_the_ledger_records_every_name_the_run_gives_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(scratch.RUN_ENV, raising=False)
    monkeypatch.delenv(scratch.LEDGER_ENV, raising=False)
    run = scratch.begin_run(tmp_path)
    assert scratch.current_run() == run  # children inherit it through the environment
    names = [scratch.scratch_name("test"), scratch.scratch_name("test", "stream")]
    assert scratch.recorded(run) == [("database", names[0]), ("stream", names[1])]
    assert scratch.recorded(Run.new()) == []
    scratch.end_run()
    assert list(tmp_path.iterdir()) == []


def test_a_stamped_name_is_stale_once_older_than_the_sweep_age() -> None:
    old, young = Run.new(NOW - 2 * HOURS), Run.new(NOW - HOURS / 2)
    assert stale(Found("database", old.name("test")), NOW, HOURS)
    assert stale(Found("stream", old.name("bench", "stream")), NOW, HOURS)
    assert stale(Found("stream", "KV_" + old.name("test", "stream")), NOW, HOURS)
    assert stale(Found("consumer", old.name("test", "stream"), stream="ANY"), NOW, HOURS)
    assert not stale(Found("database", young.name("test")), NOW, HOURS)


def test_what_is_still_in_use_is_never_stale() -> None:
    old = Run.new(NOW - 2 * HOURS)
    assert not stale(Found("database", old.name("test"), connections=1), NOW, HOURS)
    recent = NOW - timedelta(minutes=1)
    assert not stale(Found("stream", old.name("test", "stream"), last_active=recent), NOW, HOURS)
    assert stale(
        Found("stream", old.name("test", "stream"), last_active=NOW - 2 * HOURS), NOW, HOURS
    )


def test_names_of_before_the_stamp_go_by_the_age_the_server_gives() -> None:
    for resource, name in [
        ("database", "parlor_test_0123456789"),
        ("database", "parlor_es_0123456789"),
        ("database", "parlor_bench_01234567"),
        ("database", "parlor_load_01234567"),
        ("database", "parlor_deploy_connect4x4_01234567"),
        ("stream", "PARLOR_TEST_0123456789"),
        ("stream", "PARLOR_LOAD_01234567"),
        ("stream", "T0123456789ab"),
    ]:
        kind = "database" if resource == "database" else "stream"
        assert stale(Found(kind, name, created=NOW - 2 * HOURS), NOW, HOURS), name
        assert not stale(Found(kind, name, created=NOW - HOURS / 2), NOW, HOURS), name
        assert not stale(Found(kind, name), NOW, HOURS), f"{name}: age unknown, kept"


def test_names_that_are_not_ours_are_never_stale_nor_removed() -> None:
    long_ago = NOW - timedelta(days=30)
    for resource, name in [
        ("database", "postgres"),
        ("database", "test"),
        ("database", "parlor"),
        ("database", "parlor_test_notours"),
        ("stream", "PARLOR_EVENTS"),
        ("stream", "ORDERS"),
        ("stream", "PARLOR_TEST_20261201115500_abcdef"),  # a stamped name has a counter too
        ("consumer", "relay"),
    ]:
        found = Found(resource, name, created=long_ago)  # type: ignore[arg-type]
        assert not stale(found, NOW, HOURS), name
        with pytest.raises(ValueError, match="not a name of Parlor"):
            scratch.remove("postgresql://127.0.0.1:1/x", "nats://127.0.0.1:1", [found], force=True)


def test_the_stream_a_platform_names_after_a_scratch_database_is_the_runs_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(scratch.RUN_ENV, raising=False)
    monkeypatch.delenv(scratch.LEDGER_ENV, raising=False)
    run = scratch.begin_run(tmp_path)
    database = scratch.scratch_name("test")
    stream = f"PARLOR_{database.upper()}_EVENTS"  # parlor-platform's name for its stream
    scratch.record("stream", stream)
    assert scratch.recorded(run) == [("database", database), ("stream", stream)]
    scratch.end_run()
    old = Run.new(NOW - 2 * HOURS).name("test")
    assert stale(Found("stream", f"PARLOR_{old.upper()}_EVENTS"), NOW, HOURS)
    assert not stale(Found("stream", f"PARLOR_{old.upper()}_OTHER"), NOW, HOURS)
    assert not stale(Found("stream", "PARLOR_PARLOR_EVENTS"), NOW, HOURS)
