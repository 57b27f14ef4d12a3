"""A TypeScript client generated from protos/buf.gen.ts.yaml with local plugins compiles and
plays: buf (PyPI's buf-bin) runs @bufbuild/protoc-gen-es from node_modules, tsc compiles
tests/node/ts/client.ts against the generated code (strict), and node runs it against an
in-process platform. The client reads a refusal's ErrorInfo from grpc-status-details-bin
with the vendored google/rpc protos, then plays Connect 4x4 against a bot to the end.

Node and npm are required: without them this test fails, it never skips.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from test_node_client import npm_packages, run

pytestmark = pytest.mark.integration

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
TS = HERE / "ts"


def buf() -> str:
    here = Path(sys.executable).parent / "buf"
    found = str(here) if here.exists() else shutil.which("buf")
    assert found, "buf is required (pip install buf-bin; make install does)"
    return found


async def test_a_typescript_client_generated_from_buf_gen_yaml_compiles_and_plays(
    start_platform,
) -> None:
    node = shutil.which("node")
    assert node, "node is required for the TypeScript client test (install Node.js 18+)"
    await npm_packages()
    shutil.rmtree(TS / "gen", ignore_errors=True)
    shutil.rmtree(TS / "out", ignore_errors=True)
    env = {
        **os.environ,
        "PATH": f"{HERE / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}",
    }
    template = ROOT / "protos" / "buf.gen.ts.yaml"
    await run(
        buf(), "generate", str(ROOT / "protos"), "--template", str(template), "-o", "ts", env=env
    )
    generated = sorted(p.relative_to(TS / "gen" / "ts").as_posix() for p in TS.rglob("*_pb.ts"))
    assert "google/rpc/error_details_pb.ts" in generated
    assert "parlor/connect4x4/v1/connect4x4_pb.ts" in generated
    await run(str(HERE / "node_modules" / ".bin" / "tsc"), "-p", "ts", env=env)

    async with start_platform("connect4x4") as platform:
        env.update(PARLOR_TARGET=platform.target, PARLOR_TOKEN=platform.token("ts-player"))
        output = await run(node, "ts/out/client.js", env=env, seconds=120)
    result = json.loads(output.strip().splitlines()[-1])
    assert result["refused"] == "parlor.dev/NOT_SEATED"
    assert result["status"] in ("WON", "TIED")
    assert result["moves"] >= 1
