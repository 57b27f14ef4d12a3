"""The one protoc invocation that makes Python code from Parlor's protos.

Both build hooks call ``generate``: libs/protos' (every file of the repository's protos/)
and the example game's (its own proto, importing the platform's). It needs nothing but
grpcio-tools and mypy-protobuf, so a build hook loads it by its path in its isolated
build environment (a hook is not run as a package), and ``make lint`` and the tests run
the example's hook the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path


def generate(proto_root: Path, out: Path, imports: Iterable[Path] = ()) -> list[Path]:
    """protoc (grpcio-tools) with the grpc and mypy plugins over every ``.proto`` file under
    ``proto_root`` but google/, into ``out``; ``imports`` are further folders its files
    import from (not generated). Returns the files written."""
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
    # mypy-protobuf's plugins beside this interpreter, found without PATH (make lint runs
    # .venv/bin/python); else protoc looks for them on PATH.
    tools = Path(sys.executable).parent
    plugins = [
        f"--plugin=protoc-gen-{name}={tools / f'protoc-gen-{name}'}"
        for name in ("mypy", "mypy_grpc")
        if (tools / f"protoc-gen-{name}").exists()
    ]
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        *(f"-I{path}" for path in imports),
        f"-I{include}",
        *plugins,
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed: " + " ".join(args))
    return sorted(out.rglob("*_pb2*.py*"))
