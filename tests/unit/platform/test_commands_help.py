"""Every command Parlor installs answers ``--help`` with its usage and starts nothing.

``parlor-web --help`` used to ignore the flag and start serving (or fail on a taken port).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def _commands() -> list[str]:
    names: list[str] = []
    for pyproject in sorted(
        [*ROOT.glob("libs/*/pyproject.toml"), *ROOT.glob("services/*/pyproject.toml")]
    ):
        project = tomllib.loads(pyproject.read_text()).get("project", {})
        names += sorted(project.get("scripts", {}))
    return names


def test_the_commands_are_found() -> None:
    assert {"parlor", "parlor-platform", "parlor-serve", "parlor-web"} <= set(_commands())


@pytest.mark.parametrize("command", _commands())
def test_help_prints_usage_and_serves_nothing(command: str) -> None:
    # ports no test uses, in case a command wrongly starts serving: it must not get that far
    env = {**os.environ, "PARLOR_GRPC_PORT": "0", "PARLOR_WEB_PORT": "0", "NO_COLOR": "1"}
    done = subprocess.run(
        [str(BIN / command), "--help"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout.lower(), done.stdout
