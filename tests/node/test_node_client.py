"""A Node.js client (@grpc/grpc-js + @grpc/proto-loader, loading protos/ directly) plays a
whole Connect 4x4 game against a bot on an in-process platform and replays it.

Installs its npm packages itself (``npm ci`` into tests/node/node_modules from the committed
lockfile). Node and npm are required: without them this test fails, it never skips.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from kits.npm import npm_ci

pytestmark = pytest.mark.integration

HERE = Path(__file__).parent


async def run(*command: str, env: dict[str, str] | None = None, seconds: float = 300) -> str:
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=HERE,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), seconds)
    text = out.decode()
    assert process.returncode == 0, f"{' '.join(command)} failed:\n{text}"
    return text


async def npm_packages() -> None:
    """``npm ci`` unless node_modules already holds exactly the lockfile's packages."""
    await asyncio.to_thread(npm_ci, HERE, "the Node.js client tests")


async def test_a_node_client_plays_a_whole_game_against_a_bot_and_replays_it(
    start_platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = shutil.which("node")
    assert node, "node is required for the Node.js client test (install Node.js 18+)"
    await npm_packages()
    # matchmaking fills the empty seat with a bot after a wait longer than a quiet stream
    # lives (as under `make run`: 60 s each), so the client must watch its ticket again
    monkeypatch.setenv("PARLOR_MATCHMAKING_BOT_FILL_SECONDS", "2")
    monkeypatch.setenv("PARLOR_STREAM_IDLE_SECONDS", "0.5")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    async with start_platform("matchmaking", "connect4x4") as platform:
        env = {
            **os.environ,
            "PARLOR_TARGET": platform.target,
            "PARLOR_TOKEN": platform.token("node-player"),
            "PARLOR_BOT": "bot:greedy",
        }
        output = await run(node, "client.js", env=env, seconds=120)
    steps = {line["step"]: line for line in map(json.loads, output.splitlines())}
    assert "error" not in steps, output
    assert steps["watching"]["reopened"], output
    seats = steps["created"]["seats"]
    assert "node-player" in seats
    assert next(s for s in seats if s != "node-player").startswith("bot:")
    assert steps["matched"]["match_id"] == steps["created"]["game_id"]
    finished = steps["finished"]
    assert finished["status"] in ("STATUS_WON", "STATUS_TIED")
    assert finished["end_reason"] in ("FOUR_IN_A_LINE", "ALL_CHECKERS_USED", "NO_LEGAL_MOVES")
    replayed = steps["replayed"]
    assert replayed["events"] == finished["version"]
    assert replayed["first"] == "seats_taken"
    assert replayed["last"] == "game_finished"
    assert len(replayed["notation"]) >= 2 * finished["my_moves"] - 1
    assert steps["streamed"]["events"] == finished["version"]
    assert steps["streamed"]["final_status"] == finished["status"]
