"""What the manifests trust (issue 15, classes 3, 8 and 9), checked offline on the overlays.

- NATS: a user per service that uses the bus, the same users and permissions in both
  overlays (dev: nats.conf; prod: the chart's values), each allowed to publish only its own
  events and to use only its own consumer; the services log in as their user with the
  password the NATS side has; prod speaks TLS only, the services trusting its CA.
- Token keys: only matchmaking holds the identity key, each calling service its own key
  under its own key id, every service the JWKS; development mode is off everywhere; the dev
  JWKS is the public half of the dev keys.
- Network: egress to 5432 and 4222 goes to the PostgreSQL and NATS pods only, and those pods
  have policies of their own that let only Parlor's pods in on their client ports.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_facts import (
    NATS_USERS,
    OVERLAYS,
    ROOT,
    SIGNING_KEYS,
    dev_secrets,
    environment,
    of_kind,
    parlor_container,
    rendered,
    secret_value,
)

from parlor.eventstore.bus import subject_matches
from parlor.gamehost.pipeline.games import games
from parlor.kit.auth import jwks
from parlor.kit.keys import declared_calls

PREFIX, STREAM = "parlor.events", "PARLOR_EVENTS"
CATEGORIES = (*games(), "matchmaking")  # every game in the registry, and matchmaking
# What a service's code does on NATS (jetstream.py, matches.py, bell.py, scoring's consumer).
CONSUMERS = {**{game: f"{game}-matches" for game in games()}, "scoring": "scoring"}
# The pods PostgreSQL and NATS run in: dev's StatefulSets; prod's CloudNativePG and chart pods.
PROD_BACKEND_LABELS = {
    5432: {"cnpg.io/cluster": "parlor-db", "cnpg.io/podRole": "instance"},
    4222: {"app.kubernetes.io/name": "nats", "app.kubernetes.io/instance": "nats"},
}


def dev_nats_conf() -> dict[str, Any]:
    (secret,) = [
        s for s in of_kind(rendered("dev"), "Secret").values()
        if s["metadata"]["name"].startswith("parlor-nats-config")
    ]  # fmt: skip
    return dict(json.loads(secret_value(secret, "nats.conf")))


def prod_values() -> dict[str, Any]:
    return dict(yaml.safe_load((OVERLAYS["prod"] / "nats" / "values.yaml").read_text()))


def permissions(users: list[dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    return {
        u["user"]: {
            "publish": u["permissions"]["publish"]["allow"],
            "subscribe": u["permissions"]["subscribe"]["allow"],
        }
        for u in users
    }


def named(actual: str, expected: str) -> bool:
    """A Secret's name, with or without the hash suffix a kustomize generator adds."""
    suffixed = re.fullmatch(rf"{re.escape(expected)}-[a-z0-9]{{10}}", actual)
    return actual == expected or suffixed is not None


def allowed(patterns: list[str], subject: str) -> bool:
    return any(p == subject or subject_matches(p, subject) for p in patterns)


def delivered(overlay: str, name: str) -> dict[str, Any]:
    objects = rendered(overlay)
    container = parlor_container(of_kind(objects, "Deployment")[name])
    return environment(container, objects, overlay)


def test_both_overlays_give_nats_the_same_users_and_permissions() -> None:
    dev = permissions(dev_nats_conf()["authorization"]["users"])
    prod = permissions(prod_values()["config"]["merge"]["authorization"]["users"])
    assert dev == prod
    assert sorted(dev) == sorted(NATS_USERS)


@pytest.mark.parametrize("user", NATS_USERS)
def test_a_service_publishes_only_its_own_events_and_uses_only_its_own_consumer(
    user: str,
) -> None:
    rules = permissions(dev_nats_conf()["authorization"]["users"])[user]
    for category in CATEGORIES:
        for event in ("GameFinished", "MatchFormed", "TilesPlayed"):
            subject = f"{PREFIX}.{category}.g1.{event}"
            assert allowed(rules["publish"], subject) == (category == user), (user, subject)
    for other, durable in CONSUMERS.items():
        for api in (
            f"$JS.API.CONSUMER.MSG.NEXT.{STREAM}.{durable}",
            f"$JS.ACK.{STREAM}.{durable}.1",
        ):
            assert allowed(rules["publish"], api) == (other == user), (user, api)
    assert not allowed(rules["publish"], f"$JS.API.STREAM.DELETE.{STREAM}")
    assert not allowed(rules["publish"], f"$JS.API.STREAM.PURGE.{STREAM}")
    # and it may do what its code does
    assert allowed(rules["subscribe"], "_INBOX.abc.1")
    # At start every service asks to create the stream (ensure_streams: a refused create
    # leaves it never ready); NATS refuses a create over an existing stream whose config
    # differs, so only an update could reconfigure it.
    assert allowed(rules["publish"], f"$JS.API.STREAM.CREATE.{STREAM}")
    if user in CATEGORIES:
        assert allowed(rules["publish"], f"{PREFIX}.{user}.g1.GameFinished")
        # Its relay reads stream messages back: the last one (verify) and the one a
        # duplicate ack names (a forgery that took an event's id?).
        assert allowed(rules["publish"], f"$JS.API.STREAM.MSG.GET.{STREAM}")
    if user in CONSUMERS:
        durable = CONSUMERS[user]
        assert allowed(rules["publish"], f"$JS.API.CONSUMER.CREATE.{STREAM}.{durable}.x.y")


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
@pytest.mark.parametrize("user", NATS_USERS)
@pytest.mark.parametrize("api", ["UPDATE", "DELETE", "PURGE"])
def test_no_service_may_reconfigure_delete_or_purge_the_shared_stream(
    overlay: str, user: str, api: str
) -> None:
    """A compromised pod must not set max_msgs=1 (or drop the stream) under everyone."""
    users = dev_nats_conf() if overlay == "dev" else prod_values()["config"]["merge"]
    rules = permissions(users["authorization"]["users"])[user]
    for subject in (f"$JS.API.STREAM.{api}.{STREAM}", f"$JS.API.STREAM.{api}.OTHER"):
        assert not allowed(rules["publish"], subject), (overlay, user, subject)
    assert not any(p.startswith("$JS.API.STREAM.UPDATE") for p in rules["publish"])
    assert not any(p in {">", "$JS.>", "$JS.API.>", "$JS.API.STREAM.>"} for p in rules["publish"])


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
@pytest.mark.parametrize("user", NATS_USERS)
def test_each_service_logs_in_to_nats_as_its_own_user(overlay: str, user: str) -> None:
    env = delivered(overlay, user)
    assert env["PARLOR_NATS_USER"].value == user
    password = env["PARLOR_NATS_PASSWORD"]
    assert (password.kind, password.key) == ("secret", f"{user}-password")
    assert named(password.name, "parlor-nats")
    if overlay == "dev":
        conf = {u["user"]: u["password"] for u in dev_nats_conf()["authorization"]["users"]}
        assert password.value == conf[user]
    else:
        variable = prod_values()["container"]["env"][f"{user.upper()}_PASSWORD"]
        assert variable["valueFrom"]["secretKeyRef"] == {
            "name": "parlor-nats",
            "key": f"{user}-password",
        }
        users = prod_values()["config"]["merge"]["authorization"]["users"]
        (mine,) = [u for u in users if u["user"] == user]
        assert mine["password"] == f"<< ${user.upper()}_PASSWORD >>"


@pytest.mark.parametrize("user", NATS_USERS)
def test_prod_speaks_to_nats_over_tls_only(user: str) -> None:
    assert prod_values()["config"]["nats"]["tls"] == {
        "enabled": True,
        "secretName": "nats-server-tls",
    }
    env = delivered("prod", user)
    assert env["PARLOR_NATS_URL"].value.startswith("tls://")
    ca = env["PARLOR_NATS_TLS_CA_FILE"].value
    deployment = of_kind(rendered("prod"), "Deployment")[user]
    mounts = parlor_container(deployment)["volumeMounts"]
    (mount,) = [m for m in mounts if ca.startswith(m["mountPath"] + "/")]
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    secret = volumes[mount["name"]]["secret"]
    assert secret["secretName"] == "nats-server-tls"
    assert secret["items"] == [{"key": "ca.crt", "path": "ca.crt"}]  # never the server's key


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
def test_only_the_identity_service_holds_the_identity_key(overlay: str) -> None:
    for name in of_kind(rendered(overlay), "Deployment"):
        env = delivered(overlay, name)
        assert env["PARLOR_DEV_MODE"].value == "false"
        public = env["PARLOR_JWT_PUBLIC_KEYS"]
        assert (public.kind, public.key) == ("secret", "jwks.json")
        assert named(public.name, "parlor-jwks")
        private = env["PARLOR_JWT_PRIVATE_KEY"]
        if name in SIGNING_KEYS:
            kid, secret = SIGNING_KEYS[name]
            assert (private.kind, private.key) == ("secret", "private-key")
            assert named(private.name, secret)
            assert env["PARLOR_JWT_KEY_ID"].value == kid
        else:
            assert (private.kind, private.value) == ("value", "")
            assert env["PARLOR_JWT_KEY_ID"].value != "identity"


def test_the_dev_jwks_is_the_public_half_of_the_dev_keys() -> None:
    keys = {
        kid: delivered("dev", name)["PARLOR_JWT_PRIVATE_KEY"].value
        for name, (kid, _) in SIGNING_KEYS.items()
    }
    public = delivered("dev", "dictionary")["PARLOR_JWT_PUBLIC_KEYS"].value
    assert json.loads(public) == json.loads(jwks(keys, declared_calls()))
    # a game's own key signs only for the services its declaration says it calls
    audiences = {key["kid"]: key.get("aud") for key in json.loads(public)["keys"]}
    assert audiences == {
        "identity": None,
        **{name: sorted(game.calls) for name, game in games().items() if game.calls},
    }


def backend_labels(overlay: str) -> dict[int, dict[str, str]]:
    if overlay == "prod":
        return PROD_BACKEND_LABELS
    sets = of_kind(rendered("dev"), "StatefulSet")
    return {
        5432: sets["postgres"]["spec"]["template"]["metadata"]["labels"],
        4222: sets["nats"]["spec"]["template"]["metadata"]["labels"],
    }


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    return bool(selector.get("matchLabels")) and selector["matchLabels"].items() <= labels.items()


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
def test_egress_to_postgres_and_nats_goes_to_their_pods_only(overlay: str) -> None:
    labels = backend_labels(overlay)
    policies = of_kind(rendered(overlay), "NetworkPolicy").values()
    seen: set[int] = set()
    for policy in policies:
        for rule in policy["spec"].get("egress", ()):
            ports = {p["port"] for p in rule.get("ports", ())}
            for port in ports & set(labels):
                seen.add(port)
                assert rule.get("to"), f"{policy['metadata']['name']}: egress to {port} without to:"
                for peer in rule["to"]:
                    assert "ipBlock" not in peer
                    assert "namespaceSelector" not in peer
                    assert selects(peer["podSelector"], labels[port]), (overlay, port, peer)
    assert seen == set(labels)


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
@pytest.mark.parametrize("port", [5432, 4222])
def test_postgres_and_nats_pods_have_policies_of_their_own(overlay: str, port: int) -> None:
    pods = backend_labels(overlay)[port]
    own = [
        p for p in of_kind(rendered(overlay), "NetworkPolicy").values()
        if selects(p["spec"]["podSelector"], pods)
    ]  # fmt: skip
    assert own, f"no NetworkPolicy selects the pods serving {port} in {overlay}"
    for policy in own:
        assert "Ingress" in policy["spec"]["policyTypes"]
        for rule in policy["spec"]["ingress"]:
            if port not in {p["port"] for p in rule["ports"]}:
                continue
            for peer in rule["from"]:
                selector = peer.get("podSelector", {}).get("matchLabels", {})
                parlor = selector == {"app.kubernetes.io/part-of": "parlor"}
                operator = overlay == "prod" and "namespaceSelector" in peer and port == 5432
                assert parlor or selector.items() <= pods.items() or operator, (overlay, peer)
    # Parlor's service pods are among those let in.
    service = of_kind(rendered(overlay), "Deployment")["scoring"]
    pod = service["spec"]["template"]["metadata"]["labels"]
    assert any(
        selects(peer.get("podSelector", {}), pod)
        for policy in own for rule in policy["spec"]["ingress"]
        if port in {p["port"] for p in rule["ports"]} for peer in rule["from"]
    )  # fmt: skip


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
    )
    return [name for name in listed.stdout.decode().split("\0") if name]


def test_no_tracked_file_holds_a_private_key_or_a_nats_password() -> None:
    """Anyone with the repository could sign tokens for, or log in to, a dev cluster."""
    generated = dev_secrets()
    passwords = [
        line.split("=", 1)[1] for line in (generated / "nats.env").read_text().splitlines()
    ]
    assert len(passwords) == len(NATS_USERS)
    assert all(len(p) >= 32 for p in passwords)
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(generated / "nats.env")], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0, "the generated dev secrets must be gitignored"
    # a password given to a user or Secret in the open (nats.conf, secretGenerator literals)
    literal = re.compile(r'(?:"password"\s*:\s*"(?!GENERATED-BY-make-secrets\.py")[^"$<]+"'
                         r"|-password=[0-9a-f]{16,})")  # fmt: skip
    found = []
    for name in tracked_files():
        path = ROOT / name
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        if "BEGIN PRIVATE KEY" in text and "-----BEGIN PRIVATE KEY-----\n" in text:
            found.append(f"{name}: a private key")
        if (match := literal.search(text)) is not None:
            found.append(f"{name}: {match.group(0)[:40]}")
        found += [f"{name}: a generated NATS password" for p in passwords if p in text]
    assert not found, found


def test_make_secrets_run_many_times_at_once_makes_one_set_of_whole_secrets(
    tmp_path: Path,
) -> None:
    """Runs at once (parallel test workers, two terminals) into a new folder all succeed and
    leave one set: every key file whole, the JWKS of those keys, and nats.env's passwords the
    ones nats.conf holds (a run read another's key file while it was still empty)."""
    script = OVERLAYS["dev"] / "make-secrets.py"
    runs = [
        subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / "keys")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    for run in runs:
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
    keys = tmp_path / "keys"
    pems = sorted(keys.glob("*.pem"))
    assert pems
    assert all(p.read_text().startswith("-----BEGIN PRIVATE KEY-----") for p in pems)
    assert not list(keys.glob(".*.pem.*"))  # no file of a run's own left behind
    assert not list(keys.glob(".jwks.json.*"))
    documents = json.loads((keys / "jwks.json").read_text())["keys"]
    assert sorted(k["kid"] for k in documents) == sorted(p.stem for p in pems)
    conf = json.loads((keys / "nats.conf").read_text())
    passwords = {u["user"]: u["password"] for u in conf["authorization"]["users"]}
    env = dict(line.split("-password=", 1) for line in (keys / "nats.env").read_text().splitlines())
    assert env == passwords
