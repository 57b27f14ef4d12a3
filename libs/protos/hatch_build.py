"""Generate Python code from the repository's protos/ at build time.

The generated modules are written into src/ (ignored by git) so an editable
install and a wheel both carry them; nothing generated is ever committed or
copied into a service. The protoc invocation is codegen.py's, which the example
game's build hook calls too.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        proto_root = Path(
            os.environ.get("PARLOR_PROTO_ROOT", root / ".." / ".." / "protos")
        ).resolve()
        spec = importlib.util.spec_from_file_location("parlor_protos_codegen", root / "codegen.py")
        if spec is None or spec.loader is None:
            raise ImportError("cannot load libs/protos/codegen.py")
        codegen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(codegen)
        codegen.generate(proto_root, root / "src")
