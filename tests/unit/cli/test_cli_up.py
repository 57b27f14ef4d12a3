"""`parlor up` shows its options in --help and hands them to parlor-platform."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from parlor.cli import main as cli_main

runner = CliRunner()


def _argv(monkeypatch: pytest.MonkeyPatch, *args: str) -> list[str]:
    called: list[list[str]] = []

    def execv(program: str, argv: list[str]) -> None:
        called.append(argv)
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", execv)
    result = runner.invoke(cli_main.app, ["up", *args])
    assert result.exit_code == 0, result.output
    (argv,) = called
    assert argv[0].endswith("parlor-platform")
    return argv[1:]


def test_help_shows_only_and_port() -> None:
    result = runner.invoke(cli_main.app, ["up", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "--only" in result.stdout
    assert "--port" in result.stdout


def test_port_goes_to_the_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _argv(monkeypatch, "--port", "50052") == ["--port", "50052"]


@pytest.mark.parametrize(
    "args",
    [
        ("--only", "dictionary", "upwords", "--port", "0"),
        ("--only", "dictionary", "--only", "upwords", "--port", "0"),
        ("--port", "0", "--only", "dictionary", "upwords"),
    ],
)
def test_only_takes_several_services_either_way(
    monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    assert _argv(monkeypatch, *args) == ["--port", "0", "--only", "dictionary", "upwords"]
