"""Print pins for every third-party distribution the image installs: ``constraints.txt``.

Run it in a virtualenv where the repository's packages are installed (``make
install`` makes one): ``.venv/bin/python deploy/image/freeze.py >
deploy/image/constraints.txt``. The image build installs with ``-c
constraints.txt``, so the same source gives the same image.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
# development-only packages that the image leaves out
LEFT_OUT = {"libs/devinfra", "services/platform"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def image_packages() -> list[str]:
    dirs = [
        *sorted(ROOT.glob("libs/*/pyproject.toml")),
        *sorted(ROOT.glob("services/*/pyproject.toml")),
    ]
    return [
        tomllib.loads(p.read_text())["project"]["name"]
        for p in dirs
        if str(p.parent.relative_to(ROOT)) not in LEFT_OUT
    ]


def closure(roots: list[str]) -> dict[str, str]:
    """Installed third-party distributions required (transitively) by ``roots``: name -> version."""
    local = {normalized(n) for n in roots}
    pins: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[str, frozenset[str]]] = [(n, frozenset()) for n in roots]
    while todo:
        name, extras = todo.pop()
        name = normalized(name)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            print(f"freeze: {name} is not installed here", file=sys.stderr)
            raise SystemExit(1) from None
        if name not in local and not name.startswith("parlor-"):
            pins[name] = dist.version
        for text in dist.requires or ():
            req = Requirement(text)
            wanted = req.marker is None or any(
                req.marker.evaluate({"extra": extra}) for extra in ("", *extras)
            )
            if wanted:
                todo.append((req.name, frozenset(req.extras)))
    return pins


def main() -> int:
    print("# Pins for the image's third-party packages; regenerate with deploy/image/freeze.py")
    for name, version in sorted(closure(image_packages()).items()):
        print(f"{name}=={version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
