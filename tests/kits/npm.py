"""``npm ci`` into a test folder of the checkout (tests/node, tests/oidc), once.

The suite runs on several pytest-xdist workers, which share the checkout: two tests asking for
the same folder's packages at once would run two ``npm ci`` into one ``node_modules`` (each
removes it first). A lock file per folder lets the first install and the others wait for it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"parlor-npm-{digest}.lock"
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def npm_ci(folder: Path, needed_by: str) -> None:
    """``npm ci`` in ``folder`` unless its node_modules already holds the lockfile's packages."""
    npm = shutil.which("npm")
    assert npm, f"npm is required for {needed_by} (install Node.js 18+)"
    lock = folder / "package-lock.json"
    installed = folder / "node_modules" / ".package-lock.json"
    with _locked(folder):
        if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime:
            return
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"npm ci in {folder} failed:\n{done.stdout}"
