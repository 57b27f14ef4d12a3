"""Generate Python code from the repository's protos/ at build time.

The generated modules are written into src/ (ignored by git) so an editable
install and a wheel both carry them; nothing generated is ever committed or
copied into a service.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def generate(proto_root: Path, out: Path) -> list[Path]:
    """Run protoc (from grpcio-tools) with the grpc and mypy plugins over every .proto file."""
    import grpc_tools
    from grpc_tools import protoc

    # google/ holds vendored google.rpc protos for other languages' clients; Python has
    # them from googleapis-common-protos, and generating them again would shadow it.
    files = sorted(
        str(p.relative_to(proto_root))
        for p in proto_root.rglob("*.proto")
        if p.relative_to(proto_root).parts[0] != "google"
    )
    if not files:
        raise RuntimeError(f"no .proto files under {proto_root}")
    include = Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{include}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed: " + " ".join(args))
    return sorted(out.rglob("*_pb2*.py*"))


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        proto_root = Path(
            os.environ.get("PARLOR_PROTO_ROOT", root / ".." / ".." / "protos")
        ).resolve()
        out = root / "src"
        generate(proto_root, out)
