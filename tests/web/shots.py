"""Where the browser scripts put their screenshots: ``PARLOR_SCREENSHOTS`` (kept), or a folder
of this test process's own under the temp directory, removed when its session ends (one shared
folder let another run, another worker or checkout, rewrite ``connect4x4.png`` between this
run's write and its size check)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

_CHOSEN = os.environ.get("PARLOR_SCREENSHOTS")
SCREENSHOTS = (
    Path(_CHOSEN) if _CHOSEN else Path(tempfile.mkdtemp(prefix="parlor-screenshots-"))
).resolve()


def remove() -> None:
    """The folder gone, unless ``PARLOR_SCREENSHOTS`` chose it."""
    if not _CHOSEN:
        shutil.rmtree(SCREENSHOTS, ignore_errors=True)
