"""The example game (examples/tictactoe) for tests, without installing it into the venv.

``make install`` leaves the example out, so the platform, matchmaking and the deploy checks
never see a fourth game; a test that serves it builds its protobuf code with the example's
own build hook into a folder of its own and puts that and the example's source on the path.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tictactoe"


@contextlib.contextmanager
def tictactoe_on_path(out: Path) -> Iterator[None]:
    """The example importable (``parlor.examples.tictactoe``, ``parlor.tictactoe.v1``)."""
    spec = importlib.util.spec_from_file_location("tictactoe_build", EXAMPLE / "hatch_build.py")
    assert spec is not None
    assert spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    build.generate(out)
    added = [str(out), str(EXAMPLE / "src")]
    sys.path[:0] = added
    try:
        yield
    finally:
        for path in added:
            sys.path.remove(path)


def registered(group: str) -> Any:
    """What the example's pyproject registers under an entry-point group, loaded."""
    pyproject = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
    (target,) = pyproject["project"]["entry-points"][group].values()
    module, _, name = str(target).partition(":")  # name: attributes, dotted (as EntryPoint)
    return functools.reduce(getattr, name.split("."), importlib.import_module(module))
