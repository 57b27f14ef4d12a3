"""Calls inside the cluster are balanced per call (deploy/README.md, "gRPC load balancing").

The word games call every dictionary pod: their target is the headless Service
``dictionary-pods`` (``dns:///``, which the kit's channels balance with ``round_robin``), the
dictionary ends its connections after an age so that they resolve it again and find pods a
scale-up added, and no other service does (each serves streams an age would cut). The
NetworkPolicies let the word games' pods reach the dictionary's pods on the gRPC port: the
headless Service's addresses are the pods' own, so the policies see the pods' port.
"""

from __future__ import annotations

from typing import Any

from deploy_facts import GRPC_PORT, environment, of_kind, parlor_container

HEADLESS = "dictionary-pods"
AGE = "PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS"
WORD_GAMES = {"upwords", "takefour"}  # at least: every game that calls the dictionary


def pod_labels(objects: tuple[dict[str, Any], ...], name: str) -> dict[str, str]:
    labels: dict[str, str] = of_kind(objects, "Deployment")[name]["spec"]["template"]["metadata"][
        "labels"
    ]
    return labels


def callers(objects: tuple[dict[str, Any], ...], overlay: str) -> dict[str, str]:
    """Deployment -> its PARLOR_DICTIONARY_TARGET, for every Deployment given one."""
    found = {}
    for name, deployment in of_kind(objects, "Deployment").items():
        env = environment(parlor_container(deployment), objects, overlay)
        if "PARLOR_DICTIONARY_TARGET" in env:
            found[name] = str(env["PARLOR_DICTIONARY_TARGET"].value)
    return found


def test_the_word_games_call_every_dictionary_pod(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    targets = callers(objects, overlay)
    assert set(targets) >= WORD_GAMES
    for name, target in targets.items():
        assert target == f"dns:///{HEADLESS}:{GRPC_PORT}", (name, target)
    service = of_kind(objects, "Service")[HEADLESS]["spec"]
    assert service["clusterIP"] == "None"  # headless: DNS answers every ready pod's address
    assert service["selector"].items() <= pod_labels(objects, "dictionary").items()
    (port,) = [p for p in service["ports"] if p["port"] == GRPC_PORT]
    assert port["targetPort"] == "grpc"
    container = parlor_container(of_kind(objects, "Deployment")["dictionary"])
    assert {"name": "grpc", "containerPort": GRPC_PORT, "protocol": "TCP"} in container["ports"]


def test_only_the_dictionary_ends_its_connections_after_an_age(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    ages = {
        name: float(str(environment(parlor_container(d), objects, overlay)[AGE].value))
        for name, d in of_kind(objects, "Deployment").items()
    }
    assert ages.pop("dictionary") > 0
    assert ages, "no other service"
    assert set(ages.values()) == {0}, ages


def _peer_matches(peer: dict[str, Any], labels: dict[str, str]) -> bool:
    """A ``from``/``to`` peer naming pods of this namespace with ``labels``."""
    if "ipBlock" in peer:
        return False
    if "namespaceSelector" in peer and peer["namespaceSelector"] != {}:
        return False  # other namespaces only (the policy's own needs no namespaceSelector)
    selector = peer.get("podSelector")
    if selector is None:
        return "namespaceSelector" in peer  # every pod of every namespace
    assert not selector.get("matchExpressions"), "extend this check for matchExpressions"
    return bool(selector.get("matchLabels", {}).items() <= labels.items())


def _port_matches(rule: dict[str, Any], port: int) -> bool:
    ports = rule.get("ports")
    if not ports:
        return True
    return any(p.get("protocol", "TCP") == "TCP" and p.get("port") in (port, "grpc") for p in ports)


def allowed(
    policies: list[dict[str, Any]],
    kind: str,
    pod: dict[str, str],
    peer: dict[str, str],
    port: int,
) -> bool:
    """Whether the policies let ``pod`` take (Ingress) from, or send (Egress) to, ``peer`` on
    ``port``: allowed when no policy of that kind selects the pod, else when one rule says so."""
    field, side = ("ingress", "from") if kind == "Ingress" else ("egress", "to")
    selecting = [
        p
        for p in policies
        if kind in p["spec"].get("policyTypes", ())
        and p["spec"]["podSelector"].get("matchLabels", {}).items() <= pod.items()
    ]
    if not selecting:
        return True
    return any(
        _port_matches(rule, port)
        and (side not in rule or any(_peer_matches(x, peer) for x in rule[side]))
        for policy in selecting
        for rule in policy["spec"].get(field, ())
    )


def test_the_network_policies_let_the_word_games_reach_the_dictionary_pods(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    policies = list(of_kind(objects, "NetworkPolicy").values())
    assert policies
    dictionary = pod_labels(objects, "dictionary")
    for name in callers(objects, overlay):
        game = pod_labels(objects, name)
        assert allowed(policies, "Egress", game, dictionary, GRPC_PORT), (overlay, name)
        assert allowed(policies, "Ingress", dictionary, game, GRPC_PORT), (overlay, name)
    # the check tells a closed port apart
    assert not allowed(policies, "Ingress", dictionary, pod_labels(objects, "upwords"), 8081)
