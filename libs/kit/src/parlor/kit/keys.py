"""``parlor-keys DIR``: the token keys of a deployment, and the JWKS that verifies them.

Writes ``identity.pem`` (the identity service's key: matchmaking only), one key per
installed game service that calls another (its declaration's ``calls``: ``upwords.pem``,
``takefour.pem``; each signs only its own service token) and ``jwks.json`` (their public
halves, which every service is given).
Private key files are readable by their owner only; existing files are never replaced.
deploy/README.md shows how they become the Secrets the manifests read.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path

from parlor.kit.auth import IDENTITY_KEY_ID, generate_private_key, jwks

GAME_TYPES = "parlor.game_types"
"""The entry points that declare the installed games (``parlor.gamehost.games``)."""


def calling_services() -> tuple[str, ...]:
    """The installed game services that call another service with a token of their own:
    those whose declaration names any (``GameType.calls``; the word games), by name."""
    calling = []
    for point in entry_points(group=GAME_TYPES):
        if getattr(point.load(), "calls", ()):
            calling.append(point.name)
    return tuple(sorted(calling))


def write_keys(directory: Path, calling: Sequence[str] | None = None) -> dict[str, Path]:
    """Make the keys that are missing in ``directory``: the identity service's and one per
    service in ``calling`` (default: ``calling_services()``); the JWKS is written from all."""
    directory.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for kid in (IDENTITY_KEY_ID, *(calling_services() if calling is None else calling)):
        path = directory / f"{kid}.pem"
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(generate_private_key())
        paths[kid] = path
    document = jwks({kid: path.read_text() for kid, path in paths.items()})
    (directory / "jwks.json").write_text(document + "\n")
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlor-keys", description=__doc__)
    parser.add_argument("directory", type=Path, help="where to write the keys and jwks.json")
    args = parser.parse_args(argv)
    for kid, path in write_keys(args.directory).items():
        print(f"{kid}: {path}")
    print(f"jwks: {args.directory / 'jwks.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
