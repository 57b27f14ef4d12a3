"""The TypeScript starter bot (examples/bots/typescript/bot.ts) compiles against code
generated with protos/buf.gen.ts.yaml and plays: it and the Python starter bot
(examples/bots/parlor_bot.py), both registered by their owner, play a whole Connect 4x4
game against each other on the in-process platform through the matchmaker (the Python bot
asks it for a bot opponent, SeekBot; the TypeScript bot offered itself), each over its one
WatchPlayer stream.

Node and npm are required: without them this test fails, it never skips."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import secrets
import shutil
from pathlib import Path
from typing import Any

import pytest
from kits.bots import leave_pool_with_secret
from kits.scoring import eventually
from test_node_client import npm_packages, run
from test_ts_client import buf

from parlor.accounts import ExternalIdentity
from parlor.bots.v1 import bots_pb2 as bpb
from parlor.bots.v1 import bots_pb2_grpc as bpb_grpc
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit import client

pytestmark = pytest.mark.integration

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
KIT = ROOT / "examples" / "bots"
TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "skipLibCheck": True,
        "types": ["node"],
        "outDir": "out",
    },
    "include": ["bot.ts", "gen/**/*.ts"],
}


def python_bot() -> Any:
    spec = importlib.util.spec_from_file_location("parlor_bot", KIT / "parlor_bot.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def handle() -> str:
    return "tb" + secrets.token_hex(5).translate(str.maketrans("0123456789", "ghjkmnpqrs"))


async def build(where: Path, env: dict[str, str]) -> Path:
    """bot.ts with its generated code, compiled in ``where``; the compiled bot."""
    shutil.copy(KIT / "typescript" / "bot.ts", where / "bot.ts")
    (where / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    (where / "node_modules").symlink_to(HERE / "node_modules")
    template = ROOT / "protos" / "buf.gen.ts.yaml"
    await run(
        buf(),
        "generate",
        str(ROOT / "protos"),
        "--template",
        str(template),
        "-o",
        str(where),
        env=env,
    )
    await run(str(HERE / "node_modules" / ".bin" / "tsc"), "-p", str(where), env=env)
    return where / "out" / "bot.js"


async def test_the_typescript_and_python_starter_bots_play_each_other(
    start_platform: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = shutil.which("node")
    assert node, "node is required for the TypeScript bot test (install Node.js 18+)"
    await npm_packages()
    env = {
        **os.environ,
        "PATH": f"{HERE / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}",
    }
    compiled = await build(tmp_path, env)
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    async with start_platform("matchmaking", "connect4x4") as platform:
        (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
        owner = await component.extra["accounts"].create(
            "Owner", ExternalIdentity("https://idp.example", secrets.token_hex(8))
        )
        names, made = [handle(), handle()], []
        async with client.channel(platform.target, platform.token(owner.player_id)) as mine:
            for name in names:
                made.append(
                    await bpb_grpc.BotServiceStub(mine).RegisterBot(
                        bpb.RegisterBotRequest(handle=name, description="starter")
                    )
                )
        ts = await asyncio.create_subprocess_exec(
            node,
            str(compiled),
            env={**env, "PARLOR_TARGET": platform.target, "PARLOR_BOT_SECRET": made[0].secret},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        # the Python bot asks the matchmaker for one game against a bot (SeekBot): the
        # TypeScript bot, once it has offered itself, is the one free
        py = asyncio.create_task(python_bot().play(platform.target, made[1].secret, seek=1))
        try:
            async with client.channel(platform.target, None) as anonymous:
                token = (
                    await bpb_grpc.BotServiceStub(anonymous).ExchangeBotSecret(
                        bpb.ExchangeBotSecretRequest(secret=made[1].secret)
                    )
                ).access_token
            async with client.channel(platform.target, token) as as_python_bot:
                games = c4_grpc.Connect4x4ServiceStub(as_python_bot)

                async def finished() -> Any:
                    assert ts.returncode is None, "the TypeScript bot stopped"
                    if py.done():
                        py.result()
                    mine = await games.ListGames(c4.ListGamesRequest(player_id=made[1].bot.bot_id))
                    if not mine.games:
                        return None
                    (summary,) = mine.games  # one sought, one made
                    game = (await games.GetGame(c4.GetGameRequest(game_id=summary.game_id))).game
                    return game if game.status != c4.STATUS_IN_PROGRESS else None

                game = await eventually(finished, 300)
        finally:
            py.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await py
            with contextlib.suppress(ProcessLookupError):
                ts.terminate()
            out, _ = await ts.communicate()
            for m in made:  # they leave the shared database's pool as they stop
                await leave_pool_with_secret(platform, m.secret)
    assert game.status in {c4.STATUS_WON, c4.STATUS_TIED}
    assert game.end_reason != "timeout"
    assert {s.player_id for s in game.seats} == {m.bot.bot_id for m in made}
    positions = [
        int(json.loads(line)["position"])
        for line in out.decode().splitlines()
        if '"position"' in line
    ]
    assert positions == sorted(positions)
    assert positions
