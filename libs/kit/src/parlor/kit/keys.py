"""``parlor-keys DIR``: the token keys of a deployment, and the JWKS that verifies them.

Writes ``identity.pem`` (the identity service's key: matchmaking only), one key per
installed game service that calls another (its declaration's ``calls``: ``upwords.pem``,
``takefour.pem``; each signs only its own service token) and ``jwks.json`` (their public
halves, which every service is given). Each service key's JWK names the services its
tokens may be for (``aud``: the declaration's ``calls``, the word games' ``dictionary``);
a verifier refuses a token that key signs for any other.
Private key files are readable by their owner only; existing files are never replaced, and
``jwks.json`` is written again each time (run it again after a game's ``calls`` change).
deploy/README.md shows how they become the Secrets the manifests read.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path

from parlor.kit.auth import IDENTITY_KEY_ID, generate_private_key, jwks

GAME_TYPES = "parlor.game_types"
"""The entry points that declare the installed games (``parlor.gamehost.pipeline.games``)."""


def declared_calls() -> dict[str, tuple[str, ...]]:
    """The installed game services that call another service with a token of their own, by
    name, with the services they call (``GameType.calls``; the word games: ``dictionary``)."""
    calls = {}
    for point in entry_points(group=GAME_TYPES):
        called = tuple(getattr(point.load(), "calls", ()))
        if called:
            calls[point.name] = called
    return dict(sorted(calls.items()))


def calling_services() -> tuple[str, ...]:
    """The installed game services that call another service with a token of their own:
    those whose declaration names any (``GameType.calls``; the word games), by name."""
    return tuple(declared_calls())


def _create_whole(path: Path, text: str) -> None:
    """Create ``path`` holding ``text``, readable by its owner only, appearing whole or not
    at all: written to a file of its own, then linked into place, which fails if another
    process made it meanwhile (theirs is then the key; two runs at once read one key, and
    never a file half written)."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as out:  # mkstemp's file is 0600 already
            out.write(text)
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


def write_keys(
    directory: Path, calls: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Path]:
    """Make the keys that are missing in ``directory``: the identity service's and one per
    service in ``calls`` (default: ``declared_calls()``), whose JWK may sign only for the
    services it calls; the JWKS is written from all."""
    calls = declared_calls() if calls is None else calls
    directory.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for kid in (IDENTITY_KEY_ID, *calls):
        path = directory / f"{kid}.pem"
        if not path.exists():
            _create_whole(path, generate_private_key())
        paths[kid] = path
    document = jwks({kid: path.read_text() for kid, path in paths.items()}, calls)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".jwks.json.")
    with os.fdopen(fd, "w") as out:
        out.write(document + "\n")
    os.chmod(temporary, 0o644)
    os.replace(temporary, directory / "jwks.json")  # a reader sees the old one or this
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
