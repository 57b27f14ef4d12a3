"""The dev overlay's secrets, made on your machine (never committed): run before applying.

    .venv/bin/python deploy/kustomize/overlays/dev/make-secrets.py

writes, into dev-keys/ next to this file (gitignored): the token keys and their JWKS
(``parlor-keys dev-keys``: identity.pem, upwords.pem, takefour.pem, jwks.json), random NATS
passwords (nats.env, for the Secret parlor-nats) and the NATS server's configuration with
them (nats.conf: the committed nats.conf, whose users and permissions these are, with each
placeholder password replaced). Keys and passwords already there are kept, so running it
again changes no secret; nats.conf is written again each time, so that it has the committed
file's permissions as they are now. Delete dev-keys/ to start over with new secrets. Runs at
the same time (two terminals, parallel tests) take turns: one makes the secrets, the other
keeps them.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import sys
import tempfile
from pathlib import Path

from parlor.kit.keys import write_keys

HERE = Path(__file__).resolve().parent
PLACEHOLDER = "GENERATED-BY-make-secrets.py"


def make(directory: Path = HERE / "dev-keys") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return _make(directory)


def _make(directory: Path) -> Path:
    write_keys(directory)
    env, conf = directory / "nats.env", directory / "nats.conf"
    kept: dict[str, str] = {}
    if env.exists():
        for line in env.read_text().splitlines():
            name, _, password = line.partition("-password=")
            if password:
                kept[name] = password
    config = json.loads((HERE / "nats.conf").read_text())
    lines = []
    for user in config["authorization"]["users"]:
        assert user["password"] == PLACEHOLDER, "the committed nats.conf holds a password"
        user["password"] = kept.get(user["user"]) or secrets.token_hex(24)
        lines.append(f"{user['user']}-password={user['password']}\n")
    _replace(env, "".join(lines))
    _replace(conf, json.dumps(config, indent=2) + "\n")
    return directory


def _replace(path: Path, text: str) -> None:
    """Write ``path`` (owner only) so that a reader (kubectl kustomize) sees the old file or
    the new one, never one half written."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as out:  # 0600, as mkstemp makes it
        out.write(text)
    os.replace(temporary, path)


if __name__ == "__main__":
    print(f"dev secrets in {make(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / 'dev-keys')}")
