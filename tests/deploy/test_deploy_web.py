"""The web client and its bridge on Kubernetes (services/web.yaml), in both overlays: run as
``parlor-web`` with the probes, resources and hardening of every service, reached by an
HTTPRoute on a Gateway listener, and calling each API where the GRPCRoute sends it."""

from __future__ import annotations

import os
from typing import Any
from unittest import mock

from deploy_facts import DEPLOY, GRPC_PORT, environment, of_kind, parlor_container

from parlor.kit.settings import load
from parlor.webgateway.component import Channels, WebSettings, parse_routes

WEB_PORT = 8080
REFERENCE = "connect4x4"  # a service whose pod conventions the web pods must share


def web_container(objects: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    return parlor_container(of_kind(objects, "Deployment")["web"])


def test_the_web_pods_run_parlor_web_like_every_service(
    objects: tuple[dict[str, Any], ...],
) -> None:
    deployments = of_kind(objects, "Deployment")
    web, reference = deployments["web"], deployments[REFERENCE]
    pod, ref_pod = web["spec"]["template"]["spec"], reference["spec"]["template"]["spec"]
    container, ref = web_container(objects), parlor_container(reference)
    assert container["command"] == ["parlor-web"]
    assert container["args"] == []
    for key in ("securityContext", "startupProbe", "livenessProbe", "lifecycle"):
        assert container[key] == ref[key], key
    # the writable /tmp every service has (not what only NATS clients mount, such as its CA)
    (tmp,) = [m for m in ref["volumeMounts"] if m["name"] == "tmp"]
    assert container["volumeMounts"] == [tmp]
    for key in ("securityContext", "terminationGracePeriodSeconds", "serviceAccountName"):
        assert pod[key] == ref_pod[key], key
    assert pod["automountServiceAccountToken"] is False
    assert container["startupProbe"]["grpc"]["port"] == GRPC_PORT  # the kit's health server
    assert container["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["http"] == WEB_PORT
    assert ports["grpc"] == GRPC_PORT
    assert set(container["resources"]) == {"requests", "limits"}
    kinds = {
        k
        for k in ("HorizontalPodAutoscaler", "PodDisruptionBudget")
        if "web" in of_kind(objects, k)
    }
    assert kinds == {"HorizontalPodAutoscaler", "PodDisruptionBudget"}


def test_the_web_service_and_route_reach_the_pods(objects: tuple[dict[str, Any], ...]) -> None:
    service = of_kind(objects, "Service")["web"]
    labels = of_kind(objects, "Deployment")["web"]["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    (http,) = [p for p in service["spec"]["ports"] if p["name"] == "http"]
    assert (http["port"], http["targetPort"]) == (WEB_PORT, "http")

    route = of_kind(objects, "HTTPRoute")["web"]
    (parent,) = route["spec"]["parentRefs"]
    gateway = of_kind(objects, "Gateway")[parent["name"]]
    listeners = {listener["name"]: listener for listener in gateway["spec"]["listeners"]}
    assert parent["sectionName"] in listeners
    assert listeners[parent["sectionName"]]["protocol"] in ("HTTP", "HTTPS")
    backends = [b for rule in route["spec"]["rules"] for b in rule["backendRefs"]]
    assert backends == [{"name": "web", "port": WEB_PORT}]
    # the grpc listener keeps its own port or host name: no route of one lands on the other
    grpc = listeners["grpc"]
    web = listeners[parent["sectionName"]]
    assert (grpc["port"], grpc.get("hostname")) != (web["port"], web.get("hostname"))


def test_the_bridge_calls_each_api_where_the_grpc_route_sends_it(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    env = environment(web_container(objects), objects, overlay)
    values = {k: v.value for k, v in env.items() if v.kind != "secret" and v.value is not None}
    with mock.patch.dict(os.environ, values, clear=False):
        settings = load(WebSettings)  # every value parses
    channels = Channels(settings.target or "own-server", parse_routes(settings.routes))
    (grpc_route,) = of_kind(objects, "GRPCRoute").values()
    routed = 0
    for rule in grpc_route["spec"]["rules"]:
        (backend,) = rule["backendRefs"]
        for match in rule["matches"]:
            service = match["method"]["service"]
            assert channels.target(service) == f"{backend['name']}:{backend['port']}", service
            routed += 1
    assert routed >= 7
    for name in ("PARLOR_WEB_HOST", "PARLOR_WEB_PORT", "PARLOR_WEB_TARGET", "PARLOR_WEB_ROUTES"):
        assert name in env, f"{name} is not set for the web pods"
    assert settings.port == WEB_PORT
    assert env["PARLOR_JWT_PUBLIC_KEYS"].kind == "secret"
    assert env["PARLOR_JWT_PRIVATE_KEY"].value == ""  # it signs nothing


def test_the_image_builds_the_web_client_into_the_package() -> None:
    dockerfile = (DEPLOY / "image" / "Dockerfile").read_text()
    assert "npm ci" in dockerfile
    assert "COPY --from=web /src/libs/webgateway/src/parlor/webgateway/static/" in dockerfile


def test_the_bridge_answers_to_the_names_browsers_and_probes_reach_it_by(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    """The bridge refuses a Host it is not (DNS rebinding): the web listener's hostname must
    be in PARLOR_WEB_ALLOWED_HOSTS, and the readiness probe, which names the pod's IP, is
    answered as every IP address is."""
    from parlor.webgateway.app import host_allowed

    env = environment(web_container(objects), objects, overlay)
    values = {k: v.value for k, v in env.items() if v.kind != "secret" and v.value is not None}
    assert "PARLOR_WEB_ALLOWED_HOSTS" in values
    with mock.patch.dict(os.environ, values, clear=False):
        allowed = load(WebSettings).allowed_hosts
    route = of_kind(objects, "HTTPRoute")["web"]
    (parent,) = route["spec"]["parentRefs"]
    gateway = of_kind(objects, "Gateway")[parent["name"]]
    (web,) = [lis for lis in gateway["spec"]["listeners"] if lis["name"] == parent["sectionName"]]
    hostnames = [web["hostname"]] if "hostname" in web else []
    assert hostnames or overlay == "dev"  # prod's browsers come by its name
    for name in [*hostnames, *route["spec"].get("hostnames", [])]:
        assert host_allowed(name, allowed), f"{overlay}: {name} is not in PARLOR_WEB_ALLOWED_HOSTS"
    probe = web_container(objects)["readinessProbe"]["httpGet"]
    assert "host" not in probe  # the pod's IP as Host
    assert not probe.get("httpHeaders")
    assert host_allowed(f"10.244.3.17:{WEB_PORT}", allowed)
