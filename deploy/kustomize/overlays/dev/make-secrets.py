"""The dev overlay's secrets, made on your machine (never committed): run before applying.

    .venv/bin/python deploy/kustomize/overlays/dev/make-secrets.py

writes, into dev-keys/ next to this file (gitignored): the token keys and their JWKS
(``parlor-keys dev-keys``: identity.pem, upwords.pem, takefour.pem, jwks.json), random NATS
passwords (nats.env, for the Secret parlor-nats) and the NATS server's configuration with
them (nats.conf: the committed nats.conf, whose users and permissions these are, with each
placeholder password replaced). Keys and passwords already there are kept, so running it
again changes no secret; nats.conf is written again each time, so that it has the committed
file's permissions as they are now. Delete dev-keys/ to start over with new secrets.
"""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path

from parlor.kit.keys import write_keys

HERE = Path(__file__).resolve().parent
PLACEHOLDER = "GENERATED-BY-make-secrets.py"


def make(directory: Path = HERE / "dev-keys") -> Path:
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
    env.write_text("".join(lines))
    conf.write_text(json.dumps(config, indent=2) + "\n")
    env.chmod(0o600)
    conf.chmod(0o600)
    return directory


if __name__ == "__main__":
    print(f"dev secrets in {make(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / 'dev-keys')}")
