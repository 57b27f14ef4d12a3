"""Writes the packaged ENABLE list, so the shipped data is rebuilt by a script, never by hand.

Usage: python libs/lexicon/scripts/build_enable1.py [path/to/enable1.txt]

The output is reproducible (gzip header without a timestamp or file name), so
rebuilding from the same list gives the same bytes and the same lexicon id.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

# The repository sits beside the project's shared/ folder (../shared from the repo root).
DEFAULT_SOURCE = Path(__file__).resolve().parents[3].parent / "shared" / "lexicons" / "enable1.txt"
PACKAGE = Path(__file__).resolve().parents[1] / "src" / "parlor" / "lexicon"
TARGET = PACKAGE / "data" / "enable1.txt.gz"


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else DEFAULT_SOURCE
    raw = source.read_bytes()
    with TARGET.open("wb") as out:
        out.write(gzip.compress(raw, compresslevel=9, mtime=0))
    print(f"{source} ({len(raw):,} bytes) -> {TARGET} ({TARGET.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
