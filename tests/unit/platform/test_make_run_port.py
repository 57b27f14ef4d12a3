"""`make run PORT=...` hands the port to the platform; without PORT it runs as before."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _planned(*args: str) -> str:
    env = {**os.environ, "MAKEFLAGS": ""}
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    (line,) = [x for x in done.stdout.splitlines() if "parlor-platform" in x]
    return line.strip()


def test_make_run_port_passes_the_port() -> None:
    assert _planned("PORT=50099").endswith("parlor-platform --port 50099")


def test_make_run_alone_leaves_the_port_to_the_settings() -> None:
    assert _planned().endswith("parlor-platform")
