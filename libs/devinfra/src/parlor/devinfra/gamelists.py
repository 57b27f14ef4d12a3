"""The per-game lists of the deploy files and the clients, written from the registry of games.

Kubernetes manifests and NATS configuration must stay static files, yet each names the
games one by one: the resources, the matchmaking and scoring game types and the web
bridge's routes (``base/kustomization.yaml``), the gRPC routes (``base/gateway.yaml``), a
NATS user per game (``overlays/dev/nats.conf``, ``overlays/prod/nats/values.yaml``) and
the Deployments the prod overlay patches (``overlays/prod/kustomization.yaml``). This
writes those lists from ``parlor.gamehost.pipeline.games.games()`` (every installed
``parlor.game_types`` entry point)::

    .venv/bin/python -m parlor.devinfra.gamelists          # rewrite the files
    .venv/bin/python -m parlor.devinfra.gamelists --check  # say what differs, exit 1

``tests/deploy/test_deploy_gamelists.py`` fails while a committed file differs from what
the registry gives, naming the file and this command. A game's own manifests
(``base/services/<game>.yaml``: its Deployment, Service, disruption budget and autoscaler)
are written the same way, from one template filled per game (``gameservices``), and so
are the TypeScript client's ``GAME_SERVICES`` and the web client's boards (``clientgames``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from parlor.devinfra import clientgames, gameservices

KUSTOMIZE = Path("deploy/kustomize")
GRPC_PORT = 50051
STREAM = "PARLOR_EVENTS"
# What runs beside the games, in the order the files list it.
BEFORE_GAMES = ("dictionary",)
AFTER_GAMES = ("matchmaking", "scoring", "chat", "tournament")
# Routes of the web bridge that are not a game's: package=service.
ROUTES_BEFORE = (("parlor.dictionary.v1", "dictionary"),)
ROUTES_AFTER = (
    ("parlor.matchmaking.v1", "matchmaking"),
    ("parlor.identity.v1", "matchmaking"),
    ("parlor.challenges.v1", "matchmaking"),
    ("parlor.bots.v1", "matchmaking"),
    ("parlor.scoring.v1", "scoring"),
    ("parlor.chat.v1", "chat"),
    ("parlor.tournaments.v1", "tournament"),
)
T = TypeVar("T")
BEGIN, END = "# games: begin (python -m parlor.devinfra.gamelists)", "# games: end"


@dataclass(frozen=True)
class Game:
    name: str  # "connect4x4": the Deployment, the NATS user, the event category
    service: str  # "parlor.connect4x4.v1.Connect4x4Service"
    proto_file: str = ""  # "parlor/connect4x4/v1/connect4x4.proto" (default: by the naming rule)

    @property
    def package(self) -> str:
        return self.service.rpartition(".")[0]

    @property
    def proto(self) -> str:
        """The proto file that declares the game's service."""
        return self.proto_file or f"{self.package.replace('.', '/')}/{self.name}.proto"


def registered() -> list[Game]:
    """Every installed game, by name."""
    from parlor.gamehost.pipeline.games import games

    found = [
        Game(name, g.service, g.proto.DESCRIPTOR.name if g.proto else "")
        for name, g in games().items()
    ]
    return sorted(found, key=lambda g: g.name)


# ---- what a game adds to each list ---------------------------------------------------------


def nats_permissions(name: str) -> dict[str, object]:
    """A game service's NATS rights: publish its own events (its relay reads stream messages
    back: ``STREAM.MSG.GET``), consume its ``<game>-matches``."""
    consumer = f"{STREAM}.{name}-matches"
    return {
        "publish": {
            "allow": [
                f"parlor.events.{name}.>",
                "$JS.API.INFO",
                "$JS.API.STREAM.NAMES",
                f"$JS.API.STREAM.INFO.{STREAM}",
                f"$JS.API.STREAM.MSG.GET.{STREAM}",
                f"$JS.API.STREAM.CREATE.{STREAM}",
                f"$JS.API.CONSUMER.INFO.{consumer}",
                f"$JS.API.CONSUMER.CREATE.{consumer}",
                f"$JS.API.CONSUMER.CREATE.{consumer}.>",
                f"$JS.API.CONSUMER.DURABLE.CREATE.{consumer}",
                f"$JS.API.CONSUMER.MSG.NEXT.{consumer}",
                f"$JS.ACK.{consumer}.>",
            ]
        },
        "subscribe": {"allow": ["_INBOX.>", f"parlor.events.{name}.>"]},
    }


def _region(text: str, body: Callable[[str], list[str]]) -> str:
    """``text`` with the lines between each BEGIN and END marker written by ``body(indent)``."""
    pattern = re.compile(
        rf"^(?P<indent>[ \t]*){re.escape(BEGIN)}\n.*?^[ \t]*{re.escape(END)}\n", re.S | re.M
    )

    def write(m: re.Match[str]) -> str:
        indent = m["indent"]
        lines = [f"{indent}{BEGIN}", *body(indent), f"{indent}{END}"]
        return "\n".join(lines) + "\n"

    written, count = pattern.subn(write, text)
    if not count:
        raise ValueError(f"no region marked {BEGIN!r} ... {END!r}")
    return written


def _setting(text: str, name: str, value: str) -> str:
    written, count = re.subn(rf"^(\s*- {name}=)\S*", lambda m: m[1] + value, text, flags=re.M)
    if count != 1:
        raise ValueError(f"expected one {name}= line, found {count}")
    return written


def base_kustomization(text: str, games: Sequence[Game]) -> str:
    names = ",".join(g.name for g in games)
    routes = [
        *ROUTES_BEFORE,
        *((g.package, g.name) for g in games),
        *ROUTES_AFTER,
    ]
    text = _each(text, games, lambda g: [f"- services/{g.name}.yaml"])
    text = _setting(text, "PARLOR_MATCHMAKING_GAME_TYPES", names)
    text = _setting(text, "PARLOR_SCORING_GAME_TYPES", names)
    web = ",".join(f"{package}={host}:{GRPC_PORT}" for package, host in routes)
    return _setting(text, "PARLOR_WEB_ROUTES", web)


def _each(text: str, items: Iterable[T], block: Callable[[T], list[str]]) -> str:
    """``text`` with its marked region written as ``block(item)``'s lines for each item, at
    the region's indent."""
    return _region(text, lambda indent: [indent + line for item in items for line in block(item)])


def gateway(text: str, games: Sequence[Game]) -> str:
    return _each(
        text,
        games,
        lambda g: [
            "- matches:",
            f"    - method: {{type: Exact, service: {g.service}}}",
            "  backendRefs:",
            f"    - {{name: {g.name}, port: {GRPC_PORT}}}",
        ],
    )


def dev_nats(text: str, games: Sequence[Game]) -> str:
    config = json.loads(text)
    users = config["authorization"]["users"]
    others = [u for u in users if u["user"] in AFTER_GAMES]
    password = next(u["password"] for u in users)
    mine = [
        {"user": g.name, "password": password, "permissions": nats_permissions(g.name)}
        for g in games
    ]
    config["authorization"]["users"] = mine + others
    return json.dumps(config, indent=2) + "\n"


def prod_nats_values(text: str, games: Sequence[Game]) -> str:
    def users(indent: str) -> list[str]:
        lines: list[str] = []
        for g in games:
            rights = nats_permissions(g.name)
            lines += [
                f"{indent}- user: {g.name}",
                f"{indent}  password: << ${g.name.upper()}_PASSWORD >>",
                f"{indent}  permissions:",
            ]
            for way in ("publish", "subscribe"):
                allowed = rights[way]
                assert isinstance(allowed, Mapping)
                lines += [f"{indent}    {way}:", f"{indent}      allow:"]
                lines += [f"{indent}      - {subject}" for subject in allowed["allow"]]
        return lines

    def env(indent: str) -> list[str]:
        lines: list[str] = []
        for g in games:
            lines += [
                f"{indent}{g.name.upper()}_PASSWORD:",
                f"{indent}  valueFrom:",
                f"{indent}    secretKeyRef:",
                f"{indent}      name: parlor-nats",
                f"{indent}      key: {g.name}-password",
            ]
        return lines

    first, rest = text.split(END + "\n", 1)
    return _region(first + END + "\n", users) + _region(rest, env)


def prod_kustomization(text: str, games: Sequence[Game]) -> str:
    """The Deployments with a bus (every game, matchmaking, scoring, chat) get NATS's CA."""
    names = "|".join([*(g.name for g in games), *AFTER_GAMES])
    marker = "# the Deployments with a bus (python -m parlor.devinfra.gamelists)"
    pattern = rf"({re.escape(marker)}\n\s*name: )\"[^\"]*\""
    written, count = re.subn(pattern, lambda m: f'{m[1]}"{names}"', text)
    if count != 1:
        raise ValueError(f"expected one line after {marker!r}, found {count}")
    return written


def helmchart(text: str, values: str) -> str:
    """The k3s HelmChart: its ``valuesContent`` is the prod values file without its comments."""
    head, mark, _ = text.partition("  valuesContent: |-\n")
    if not mark:
        raise ValueError("no valuesContent: |- in the HelmChart")
    kept = [line for line in values.splitlines() if not line.lstrip().startswith("#")]
    return head + mark + "".join(f"    {line}\n" if line else "\n" for line in kept)


Writer = Callable[[str, Sequence[Game]], str]
VALUES = "overlays/prod/nats/values.yaml"
FILES: Mapping[str, Writer] = {
    "base/kustomization.yaml": base_kustomization,
    "base/gateway.yaml": gateway,
    "overlays/dev/nats.conf": dev_nats,
    VALUES: prod_nats_values,
    "overlays/prod/kustomization.yaml": prod_kustomization,
}
HELMCHART = "components/nats-helmchart/helmchart.yaml"


def wanted(root: Path, games: Sequence[Game]) -> dict[str, tuple[str, str]]:
    """Each file by its name under deploy/kustomize: its committed text, and what it should be."""
    texts: dict[str, tuple[str, str]] = {}
    for name, write in FILES.items():
        now = (root / KUSTOMIZE / name).read_text()
        texts[name] = (now, write(now, games))
    now = (root / KUSTOMIZE / HELMCHART).read_text()
    texts[HELMCHART] = (now, helmchart(now, texts[VALUES][1]))
    return texts


def calling_services() -> tuple[str, ...]:
    """The services that call the dictionary with a key of their own (``parlor-keys``' list:
    the games whose declaration says so, ``GameType.calls``)."""
    from parlor.kit.keys import calling_services as installed

    return installed()


DEV_KUSTOMIZATION = "overlays/dev/kustomization.yaml"


def dev_keys(text: str, calling: Sequence[str]) -> str:
    """The dev overlay's Secrets of the services' own signing keys, one per calling service
    (``calling_services``), from the files ``parlor-keys dev-keys`` writes."""

    return _each(
        text,
        calling,
        lambda name: [
            f"- name: parlor-{name}-key",
            "  files:",
            f"    - private-key=dev-keys/{name}.pem",
        ],
    )


def service_files(
    root: Path, games: Sequence[Game], calling: Sequence[str]
) -> dict[str, tuple[str | None, str | None]]:
    """Each game's manifests by their name under deploy/kustomize: the committed text and what
    it should be (None: no such file; a file left from a game no longer registered goes)."""
    folder = root / KUSTOMIZE / gameservices.SERVICES
    committed = {path.stem: path.read_text() for path in sorted(folder.glob("*.yaml"))}
    kustomization = (root / KUSTOMIZE / "base/kustomization.yaml").read_text()
    names = [(g.name, g.service) for g in games]
    texts: dict[str, tuple[str | None, str | None]] = {
        f"{gameservices.SERVICES}/{g.name}.yaml": (
            committed.get(g.name),
            gameservices.manifests(g),
        )
        for g in gameservices.games_of(names, calling, kustomization, committed)
    }
    for stem, now in committed.items():
        name = f"{gameservices.SERVICES}/{stem}.yaml"
        if name not in texts and gameservices.written(now):
            texts[name] = (now, None)
    return texts


Texts = dict[Path, tuple[str | None, str | None]]


def everything(root: Path, games: Sequence[Game], calling: Sequence[str] | None = None) -> Texts:
    """Every file written from the registry, by its path under ``root``: the lists
    (``wanted``), the games' own manifests (``service_files``) and the TypeScript client's
    ``games.ts``; each with its committed text and what it should be (None: no file)."""
    calling = calling_services() if calling is None else calling
    texts: Texts = {}
    for name, pair in [*wanted(root, games).items(), *service_files(root, games, calling).items()]:
        texts[KUSTOMIZE / name] = pair
    dev = root / KUSTOMIZE / DEV_KUSTOMIZATION
    texts[KUSTOMIZE / DEV_KUSTOMIZATION] = (dev.read_text(), dev_keys(dev.read_text(), calling))
    ts = root / clientgames.FILE
    texts[clientgames.FILE] = (
        ts.read_text() if ts.exists() else None,
        clientgames.games_ts([clientgames.ClientGame(g.name, g.service, g.proto) for g in games]),
    )
    boards = root / clientgames.BOARDS
    drawn = [g.name for g in games if (boards.parent / f"{g.name}.ts").exists()]
    texts[clientgames.BOARDS] = (
        boards.read_text() if boards.exists() else None,
        clientgames.boards_ts(drawn),
    )
    return texts


def differences(
    root: Path, games: Sequence[Game], calling: Sequence[str] | None = None
) -> dict[Path, str]:
    """Each file (under ``root``) whose committed text is not what ``games`` give: its diff."""
    found: dict[Path, str] = {}
    for name, (now, text) in everything(root, games, calling).items():
        if text != now:
            diff = difflib.unified_diff(
                (now or "").splitlines(keepends=True),
                (text or "").splitlines(keepends=True),
                str(name) if now is not None else "/dev/null",
                "from the registry" if text is not None else "(no such game registered)",
            )
            found[root / name] = "".join(diff)
    return found


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m parlor.devinfra.gamelists",
        description="Write the per-game lists of the deploy files and the clients from the"
        " registry of games (run from the repository's root).",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing: print what differs, exit 1 if any"
    )
    args = parser.parse_args(list(argv))
    root = Path.cwd()
    games = registered()
    if args.check:
        found = differences(root, games)
        for diff in found.values():
            sys.stdout.write(diff)
        return 1 if found else 0
    for name, (now, text) in everything(root, games).items():
        if text is None:
            (root / name).unlink()
            print(f"removed {name}")
        elif text != now:
            (root / name).write_text(text)
            print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
