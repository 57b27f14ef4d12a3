"""The npm package ``@parlor/client`` (clients/typescript) runs its own tests (``npm test``:
its declarations compiled strictly, then node's test runner) against the web gateway in
front of the services here: unit tests on a fake gateway, and a guest who is refused, plays
Connect 4x4 against a bot while watching it, meets another by matchmaking, and reads
Upwords and Take Four through the package's typed client.

``make install`` builds the package (the web client is built on it). Without node or the
built package these tests say what is missing and are skipped; in CI (``CI`` set) they fail.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from missing import stop_if_missing

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"


def npm() -> str:
    found = shutil.which("npm")
    problems = []
    if not found or not shutil.which("node"):
        problems.append("node and npm are not installed (Node.js 18+)")
    if not (PACKAGE / "dist" / "index.js").is_file():
        problems.append("clients/typescript is not built: run make install")
    stop_if_missing(problems, "the npm package's tests")
    assert found is not None
    return found


async def test_the_npm_package_passes_its_own_tests_against_the_gateway(
    start_web: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = npm()
    monkeypatch.setenv("PARLOR_PASSWORD_ACCOUNTS", "true")  # the built-in accounts' test
    log = tmp_path / "npm-test.log"
    async with start_web("matchmaking", "connect4x4", "dictionary", "upwords", "takefour") as web:
        with log.open("wb") as out:
            process = await asyncio.create_subprocess_exec(
                command,
                "test",
                cwd=PACKAGE,
                env={**os.environ, "PARLOR_WEB_URL": web.url},
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )
            try:
                await asyncio.wait_for(process.wait(), 300)
            except TimeoutError:
                process.kill()
                await process.wait()
                pytest.fail(f"npm test did not finish in 300 s:\n{log.read_text()}")
    text = log.read_text()
    assert process.returncode == 0, f"npm test failed:\n{text}"
    # node's test runner's summary: every test ran (none skipped for want of a gateway)
    assert "# fail 0" in text, text
    assert "# skipped 0" in text, text
    assert "# pass 26" in text, text
