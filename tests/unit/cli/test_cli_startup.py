"""``parlor --help`` (and each command's) starts in well under a second: it imports neither
gRPC, the client, the signing keys' libraries, the game host nor SQLAlchemy; those come with
the command that uses them (``parlor.cli.main.lazy``; it was 3.9 s before, most of it
importing the store for the adapters' help text). Checked by what a fresh interpreter has
imported, not by a clock a loaded machine moves."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "grpc",
    "sqlalchemy",
    "alembic",
    "jwt",
    "cryptography",
    "parlor.client",
    "parlor.gamehost",
)

SCRIPT = """
import json, sys
from typer.testing import CliRunner
from parlor.cli.main import app
out = []
for args in (["--help"], ["play", "--help"], ["verify", "--help"]):
    result = CliRunner().invoke(app, args)
    out.append([result.exit_code, result.output])
# a module registered lazily (importlib.util.LazyLoader) but never used is not loaded;
# its type says so without touching it (an attribute would load it)
heavy = sorted({m.split(".")[0] if not m.startswith("parlor.") else ".".join(m.split(".")[:2])
                for m, module in list(sys.modules.items())
                if m.startswith(tuple(json.loads(sys.argv[1])))
                and type(module).__name__ != "_LazyModule"})
print(json.dumps({"runs": out, "heavy": heavy}))
"""


def test_help_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert [code for code, _ in report["runs"]] == [0, 0, 0]
    assert "verify" in report["runs"][0][1]
    assert "connect4x4 | takefour | upwords" in report["runs"][1][1].replace("\n", " ")
    assert report["heavy"] == []


def test_the_login_port_help_shows_is_the_login_modules() -> None:
    from parlor.cli import login, main

    assert main.LOGIN_PORT == login.DEFAULT_PORT
