"""``parlor verify`` with no database given reads the one ``make run`` keeps in the checkout:
embedded PostgreSQL under ``.parlor/postgres`` (``PARLOR_DATA_DIR``'s default), found from
the current directory up. A server that runs (``make run`` is up) is read and left running;
one that does not is started for the command and stopped after it. With none, the command
says what to set."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from parlor.cli.main import app
from parlor.devinfra.embedded import EmbeddedPostgres
from parlor.eventstore.migrate import migrate_blocking

pytestmark = pytest.mark.integration


def verify(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("PARLOR_DATABASE_URL", raising=False)
    monkeypatch.delenv("PARLOR_DATA_DIR", raising=False)
    result = CliRunner().invoke(app, ["verify"], catch_exceptions=False)
    return result.exit_code, result.output


def test_verify_finds_the_database_of_make_run_in_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "web" / "src").mkdir(parents=True)
    # no `make run` here yet: verify says what to set
    code, output = verify(checkout / "web", monkeypatch)
    assert code == 2
    assert "PARLOR_DATABASE_URL" in output

    server = EmbeddedPostgres(checkout / ".parlor" / "postgres")
    migrate_blocking(server.start())  # as `make run` leaves it, up
    try:
        code, output = verify(checkout / "web" / "src", monkeypatch)
        assert code == 0, output
        assert "reading the database of `make run` in" in output
        assert str((checkout / ".parlor" / "postgres").resolve()) in output.replace("\n", "")
        assert "verified 0 games" in output
        assert server.running(), "make run's server was left running"
    finally:
        server.stop()

    # `make run` stopped: its database is started for the command, and stopped again
    assert not server.running()
    code, output = verify(checkout, monkeypatch)
    assert code == 0, output
    assert "verified 0 games" in output
    assert not server.running()
