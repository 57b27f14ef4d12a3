"""Generate this example's protobuf code (parlor.tictactoe.v1) at build time, never committed.

Its proto imports the platform's shared messages from the repository's protos/; only the
example's own file is generated (the platform's code comes from parlor-protos). The protoc
invocation is libs/protos' (``libs/protos/codegen.py``), the one place Python code is
generated from protos.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def generate(out: Path, platform_protos: Path = REPO / "protos") -> None:
    spec = importlib.util.spec_from_file_location(
        "parlor_protos_codegen", REPO / "libs" / "protos" / "codegen.py"
    )
    if spec is None or spec.loader is None:
        raise ImportError("cannot load libs/protos/codegen.py")
    codegen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(codegen)
    codegen.generate(HERE / "proto", out, imports=[platform_protos])


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
