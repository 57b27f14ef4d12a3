"""Every Parlor service runs from the manifests: a Deployment started with ``parlor-serve
NAME``, gRPC probes, a Service, disruption budget, autoscaling, hardening, and a route.

Services come from the code (``parlor.services`` entry points in services/*/pyproject.toml)
and from a fixed list, so a service that is planned but has no manifest fails here too.
"""

from __future__ import annotations

from typing import Any

import pytest
from deploy_facts import (
    FIXED_REPLICAS,
    GRPC_PORT,
    METRICS_PORT,
    PLANNED_APIS,
    PLANNED_SERVICES,
    WITHOUT_GRPC_API,
    environment,
    of_kind,
    parlor_container,
    proto_services,
    rendered,
    service_distributions,
    workloads,
)

SERVICES = sorted(set(PLANNED_SERVICES) | set(service_distributions()))


def grpc_service_of(name: str) -> str:
    """The readiness probe's service: the one the proto declares for it, else the naming rule."""
    if name in WITHOUT_GRPC_API:
        return ""
    declared = [full for full, folder in proto_services().items() if folder == name]
    if declared:
        (full,) = declared
        return full
    assert name in PLANNED_APIS, f"{name}: no service in protos/parlor/{name}/ and none planned"
    return PLANNED_APIS[name]


def deployment(objects: tuple[dict[str, Any], ...], name: str) -> dict[str, Any]:
    deployments = of_kind(objects, "Deployment")
    assert name in deployments, f"no Deployment for service {name}"
    return deployments[name]


def test_every_service_in_the_code_is_planned() -> None:
    """A new service must be added to PLANNED_SERVICES (and given manifests)."""
    assert set(service_distributions()) <= set(PLANNED_SERVICES)


@pytest.mark.parametrize("name", SERVICES)
def test_every_service_has_a_deployment_that_serves_it(
    objects: tuple[dict[str, Any], ...], name: str
) -> None:
    container = parlor_container(deployment(objects, name))
    assert container["args"] == [name]
    assert "command" not in container  # the image's entrypoint: parlor-serve
    assert container["image"].rsplit(":", 1)[0].endswith("parlor")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": GRPC_PORT, "metrics": METRICS_PORT}


@pytest.mark.parametrize("name", SERVICES)
def test_every_service_has_grpc_readiness_and_liveness_probes(
    objects: tuple[dict[str, Any], ...], name: str
) -> None:
    container = parlor_container(deployment(objects, name))
    readiness = container["readinessProbe"]["grpc"]
    assert readiness["port"] == GRPC_PORT
    assert readiness.get("service", "") == grpc_service_of(name)
    for probe in ("livenessProbe", "startupProbe"):
        assert container[probe]["grpc"] == {"port": GRPC_PORT}, probe
    assert container["livenessProbe"]["failureThreshold"] >= 3


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_no_probe_asks_for_the_bus(overlay: str) -> None:
    """``parlor.bus`` (NATS and the consumers) is for metrics and alerts: a probe asking for
    it would take every pod out of service, or restart it, for a NATS outage the services
    work through (issue 38). Readiness asks for the service's own name, the rest for ""."""
    for name, found in of_kind(rendered(overlay), "Deployment").items():
        for container in found["spec"]["template"]["spec"]["containers"]:
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                asked = container.get(probe, {}).get("grpc", {}).get("service", "")
                assert not asked.startswith("parlor.bus"), f"{name}: {probe} asks for {asked}"


@pytest.mark.parametrize("name", SERVICES)
def test_every_service_has_a_service_reaching_its_pods(
    objects: tuple[dict[str, Any], ...], name: str
) -> None:
    services = of_kind(objects, "Service")
    assert name in services, f"no Service for {name}"
    spec = services[name]["spec"]
    pods = deployment(objects, name)["spec"]["template"]["metadata"]["labels"]
    assert spec["selector"].items() <= pods.items()
    grpc = {p["name"]: p for p in spec["ports"]}["grpc"]
    assert grpc["port"] == GRPC_PORT
    assert grpc["targetPort"] == "grpc"
    assert grpc["appProtocol"] == "kubernetes.io/h2c"  # gateways speak HTTP/2 to the pods


@pytest.mark.parametrize("name", SERVICES)
def test_every_service_has_a_disruption_budget_and_scales(
    objects: tuple[dict[str, Any], ...], name: str, overlay: str
) -> None:
    pods = deployment(objects, name)["spec"]["template"]["metadata"]["labels"]
    budgets = [
        b
        for b in of_kind(objects, "PodDisruptionBudget").values()
        if b["spec"]["selector"]["matchLabels"].items() <= pods.items()
    ]
    assert len(budgets) == 1
    assert budgets[0]["spec"]["maxUnavailable"] == 1
    autoscalers = {
        a["spec"]["scaleTargetRef"]["name"]: a
        for a in of_kind(objects, "HorizontalPodAutoscaler").values()
    }
    if name in FIXED_REPLICAS:
        assert name not in autoscalers
        assert deployment(objects, name)["spec"]["replicas"] >= (2 if overlay == "prod" else 1)
    else:
        hpa = autoscalers[name]["spec"]
        assert "replicas" not in deployment(objects, name)["spec"]  # the autoscaler owns it
        assert hpa["minReplicas"] >= (2 if overlay == "prod" else 1)
        assert hpa["maxReplicas"] > hpa["minReplicas"]
        assert hpa["metrics"]


def test_pods_are_hardened(objects: tuple[dict[str, Any], ...]) -> None:
    """Non-root, read-only root filesystem, no capabilities, default seccomp, resources set."""
    for obj, pod in workloads(objects):
        where = f"{obj['kind']}/{obj['metadata']['name']}"
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", where
        assert pod.get("automountServiceAccountToken") is False, where
        for container in [*pod.get("initContainers", ()), *pod["containers"]]:
            at = f"{where} {container['name']}"
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, at
            assert context["allowPrivilegeEscalation"] is False, at
            assert context["capabilities"]["drop"] == ["ALL"], at
            assert "add" not in context["capabilities"], at
            assert container["resources"]["requests"], at
            assert container["resources"]["limits"]["memory"], at


def test_shutdown_fits_in_the_grace_period(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    """preStop sleep + PARLOR_SHUTDOWN_GRACE_SECONDS must end before Kubernetes kills the pod."""
    for name in SERVICES:
        d = deployment(objects, name)
        container = parlor_container(d)
        env = environment(container, objects, overlay)
        grace = float(env["PARLOR_SHUTDOWN_GRACE_SECONDS"].value or "nan")
        sleep = float(container["lifecycle"]["preStop"]["exec"]["command"][1])
        assert sleep + grace + 5 <= d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]


def test_grpc_route_sends_every_service_to_its_pods(objects: tuple[dict[str, Any], ...]) -> None:
    (route,) = of_kind(objects, "GRPCRoute").values()
    routes: dict[str, tuple[str, int]] = {}
    for rule in route["spec"]["rules"]:
        ((backend,),) = [rule["backendRefs"]]
        for match in rule["matches"]:
            assert match["method"]["type"] == "Exact"
            routes[match["method"]["service"]] = (backend["name"], backend["port"])
    gateways = of_kind(objects, "Gateway")
    assert [p["name"] for p in route["spec"]["parentRefs"]] == list(gateways)
    for name in SERVICES:
        if name not in WITHOUT_GRPC_API:
            assert routes.get(grpc_service_of(name)) == (name, GRPC_PORT), name
    # every API in protos/ is reachable, and every route goes to a Service that exists
    assert set(proto_services()) <= set(routes)
    for backend, port in routes.values():
        assert port in {p["port"] for p in of_kind(objects, "Service")[backend]["spec"]["ports"]}


WEB_POLICY = "parlor-web"
WEB_PORT = 8080


def test_network_policy_covers_every_parlor_pod(objects: tuple[dict[str, Any], ...]) -> None:
    policies = list(of_kind(objects, "NetworkPolicy").values())
    for obj, _ in workloads(objects):
        labels = obj["spec"]["template"]["metadata"]["labels"]
        if labels.get("app.kubernetes.io/part-of") != "parlor":
            continue
        selecting = [
            p for p in policies if p["spec"]["podSelector"]["matchLabels"].items() <= labels.items()
        ]
        assert selecting, f"no NetworkPolicy selects {obj['metadata']['name']}"
        for policy in selecting:
            if policy["metadata"]["name"] == IDENTITY_EGRESS:  # adds a way out, lets nothing in
                assert policy["spec"]["policyTypes"] == ["Egress"]
                assert "ingress" not in policy["spec"]
                continue
            assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
            ports = {p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]}
            if policy["metadata"]["name"] == WEB_POLICY:  # the web pods' HTTP, and only theirs
                assert labels["app.kubernetes.io/name"] == "web"
                assert ports == {WEB_PORT}
            else:
                assert ports == {GRPC_PORT, METRICS_PORT}


IDENTITY_EGRESS = "parlor-identity-providers"


def test_only_the_identity_service_goes_out_to_sign_in_providers_and_only_on_https(
    objects: tuple[dict[str, Any], ...],
) -> None:
    """The identity service (in the matchmaking pods) reaches OpenID Connect providers
    outside the cluster; no other pod gets a way out, and not into private ranges."""
    policy = of_kind(objects, "NetworkPolicy")[IDENTITY_EGRESS]
    assert policy["spec"]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "matchmaking"}
    (rule,) = policy["spec"]["egress"]
    assert [p["port"] for p in rule["ports"]] == [443]
    blocks = [peer["ipBlock"] for peer in rule["to"]]
    assert {b["cidr"] for b in blocks} == {"0.0.0.0/0", "::/0"}
    v4 = next(b for b in blocks if b["cidr"] == "0.0.0.0/0")
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} <= set(v4["except"])


def test_migrations_run_as_a_job_and_before_every_database_service(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    job = of_kind(objects, "Job")["parlor-migrate"]
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["parlor-migrate"]
    assert "PARLOR_DATABASE_URL" in environment(container, objects, overlay)
    assert job["spec"]["ttlSecondsAfterFinished"] > 0  # gone later, so the next apply runs it again
    for name in SERVICES:
        d = deployment(objects, name)
        env = environment(parlor_container(d), objects, overlay)
        inits = {c["name"]: c for c in d["spec"]["template"]["spec"].get("initContainers", ())}
        if "PARLOR_DATABASE_URL" in env:
            assert inits["migrate"]["command"] == ["parlor-migrate"], name
            assert (
                environment(inits["migrate"], objects, overlay)["PARLOR_DATABASE_URL"]
                == env["PARLOR_DATABASE_URL"]
            )
        else:
            assert not inits, name


def test_every_image_has_a_fixed_tag(objects: tuple[dict[str, Any], ...]) -> None:
    """No ``latest`` and no untagged images: what runs is what was reviewed."""
    for obj, pod in workloads(objects):
        for container in [*pod.get("initContainers", ()), *pod["containers"]]:
            image = container["image"]
            if "@sha256:" in image:
                continue
            tag = image.rpartition(":")[2] if ":" in image else ""
            where = f"{obj['metadata']['name']}: {image}"
            assert tag, where
            assert "/" not in tag, where  # a registry port, not a tag
            assert tag != "latest", where


def test_dev_database_secret_agrees_with_its_url() -> None:
    """The dev Secret mimics CloudNativePG's: its uri must name the same user, password,
    host, port and database as its other keys (which the PostgreSQL StatefulSet uses)."""
    from urllib.parse import urlsplit

    from deploy_facts import rendered, secret_value

    secret = of_kind(rendered("dev"), "Secret")
    (db,) = [s for n, s in secret.items() if n.startswith("parlor-db-app")]
    value = {k: secret_value(db, k) for k in db["data"]}
    url = urlsplit(value["uri"])
    assert (url.username, url.password, url.hostname, str(url.port), url.path[1:]) == (
        value["username"],
        value["password"],
        value["host"],
        value["port"],
        value["dbname"],
    )
    assert value["host"] in of_kind(rendered("dev"), "Service")
