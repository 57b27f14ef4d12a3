"""The embedded PostgreSQL asks pg_ctl again when it died of a signal, not on an answer.

A CI run once failed because the forked child that runs pg_ctl as the server's user
died of SIGSEGV before pg_ctl did anything; a restart test then saw no server. These
tests make pg_ctl's runner die of a signal before and after the server starts.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from parlor.devinfra.embedded import EmbeddedPostgres, EmbeddedServerError


def _dies_of_a_signal(real: Any, *, before: bool, times: int = 1) -> Any:
    left = [times]

    def pg_ctl(args: list[str], **kwargs: Any) -> str:
        if left[0] > 0:
            left[0] -= 1
            if not before:
                real(args, **kwargs)
            raise subprocess.CalledProcessError(-11, ["pg_ctl", *args])
        return str(real(args, **kwargs))

    return pg_ctl


def _answers(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("select 1").fetchone()
        assert row is not None
        return int(row[0])


@pytest.mark.parametrize("before", [True, False], ids=["before-starting", "after-starting"])
def test_a_pg_ctl_killed_by_a_signal_is_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: bool
) -> None:
    server = EmbeddedPostgres(tmp_path / "pg")
    server.start()
    server.stop()
    real = server._pg.pg_ctl
    monkeypatch.setattr(server._pg, "pg_ctl", _dies_of_a_signal(real, before=before))
    try:
        url = server.start()
        assert _answers(url) == 1
    finally:
        monkeypatch.setattr(server._pg, "pg_ctl", real)
        server.stop()


def test_an_exit_code_from_pg_ctl_is_final(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = EmbeddedPostgres(tmp_path / "pg")  # never started: initdb only
    calls: list[list[str]] = []

    def refuses(args: list[str], **kwargs: Any) -> str:
        calls.append(args)
        raise subprocess.CalledProcessError(1, ["pg_ctl", *args])

    monkeypatch.setattr(server._pg, "pg_ctl", refuses)
    with pytest.raises(EmbeddedServerError):
        server.start()
    assert len(calls) == 1
