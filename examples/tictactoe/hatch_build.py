"""Generate this example's protobuf code (parlor.tictactoe.v1) at build time, never committed.

Its proto imports the platform's shared messages from the repository's protos/; only the
example's own file is generated (the platform's code comes from parlor-protos).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROTO = HERE / "proto"


def generate(out: Path, platform_protos: Path = HERE.parent.parent / "protos") -> None:
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    tools = Path(sys.executable).parent  # mypy-protobuf's plugins, wherever PATH points
    plugins = [
        f"--plugin=protoc-gen-{name}={tools / f'protoc-gen-{name}'}"
        for name in ("mypy", "mypy_grpc")
        if (tools / f"protoc-gen-{name}").exists()
    ]
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO}",
        f"-I{platform_protos}",
        f"-I{include}",
        *plugins,
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        *(str(p.relative_to(PROTO)) for p in sorted(PROTO.rglob("*.proto"))),
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed: " + " ".join(args))


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # imported by the example's test, outside a build
    pass
else:

    class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
        def initialize(self, version: str, build_data: dict[str, Any]) -> None:
            generate(HERE / "src")


if __name__ == "__main__":  # make lint: generate into a folder, then type-check the example
    generate(Path(sys.argv[1]))
