"""Fail the image build if a ``parlor-*`` distribution came from an index, not this repository.

Usage (in the build stage): ``python check_local.py DIR...`` with the package
directories that were installed. A library that is named as a dependency but
not yet in the repository would otherwise be looked up on a public index.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib.metadata import distributions, entry_points
from pathlib import Path


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def main(dirs: list[str]) -> int:
    local = {
        normalized(tomllib.loads((Path(d) / "pyproject.toml").read_text())["project"]["name"])
        for d in dirs
    }
    installed = {normalized(d.metadata["Name"]) for d in distributions()}
    foreign = sorted(n for n in installed if n.startswith("parlor") and n not in local)
    missing = sorted(local - installed)
    if foreign or missing:
        print(f"check_local: not from this repository {foreign}; not installed {missing}")
        return 1
    services = sorted(ep.name for ep in entry_points(group="parlor.services"))
    print(f"check_local: {len(local)} local packages; services {services}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
