"""The monitoring component: PodMonitor, alert rules and the Grafana dashboard, checked offline.

Schemas (deploy/schemas) check the custom resources' shape like every other custom resource;
here: the rules and panels query only metrics the code defines, with labels those metrics
have; the alerts the platform needs are there; the dashboard JSON is what its generator
writes, and the ConfigMap carries it for Grafana's sidecar.
"""

from __future__ import annotations

import importlib.util
import json
import re
from functools import cache
from typing import Any

import pytest
from deploy_facts import KUSTOMIZE, ROOT, of_kind, rendered
from test_deploy_manifests_valid import schema_errors

MONITORING = KUSTOMIZE / "components" / "monitoring"
NEEDED_ALERTS = {
    "ParlorRelayLagging",  # relay lag over a threshold
    "ParlorConsumerStuck",  # a consumer stuck
    "ParlorConsumerDown",  # a consumer that cannot fetch (issue 38)
    "ParlorBusUnavailable",  # parlor.bus NOT_SERVING: NATS away from a pod
    "ParlorRpcErrors",  # error rate per RPC
    "ParlorRelayWithoutLeader",  # no leader for a category
    "ParlorMoveLatencyHigh",  # p99 move latency
}
_DEFINITION = re.compile(
    r"\b(Counter|Gauge|Histogram)\(\s*\"([a-z_:][a-z0-9_:]*)\",\s*\"(?:[^\"\\]|\\.|\"\s*\")*\",\s*"
    r"\[([^\]]*)\]",
    re.S,
)
_SELECTOR = re.compile(r"\b((?:grpc|parlor)_[a-z0-9_]+)(?:\{([^}]*)\})?")


@cache
def defined_metrics() -> dict[str, frozenset[str]]:
    """Every series name the code's Prometheus metrics expose, with their labels."""
    found: dict[str, frozenset[str]] = {}
    for path in [*ROOT.glob("libs/*/src/**/*.py"), *ROOT.glob("services/*/src/**/*.py")]:
        for kind, name, labels in _DEFINITION.findall(path.read_text()):
            names = set(re.findall(r"\"(\w+)\"", labels))
            base = name.removesuffix("_total")
            series = {
                "Counter": [f"{base}_total"],
                "Gauge": [name],
                "Histogram": [f"{name}_bucket", f"{name}_count", f"{name}_sum"],
            }[kind]
            for s in series:
                found[s] = frozenset(names | ({"le"} if s.endswith("_bucket") else set()))
    return found


def check_expression(expr: str) -> list[str]:
    problems = []
    label_names = set().union(*defined_metrics().values())
    for name, matchers in _SELECTOR.findall(expr):
        labels = defined_metrics().get(name)
        if labels is None and name in label_names and not matchers:
            continue  # a label (grpc_method in ``by (...)``), not a metric
        if labels is None:
            problems.append(f"{name} is not a metric the code defines")
            continue
        for label in re.findall(r"(\w+)\s*(?:=~|!~|!=|=)", matchers):
            if label not in labels:
                problems.append(f"{name} has no label {label!r} (it has {sorted(labels)})")
    if not _SELECTOR.search(expr):
        problems.append(f"queries no Parlor metric: {expr}")
    return problems


def prod() -> tuple[dict[str, Any], ...]:
    return rendered("prod")


def rules() -> list[dict[str, Any]]:
    (rule,) = of_kind(prod(), "PrometheusRule").values()
    return [r for group in rule["spec"]["groups"] for r in group["rules"]]


def dashboard() -> dict[str, Any]:
    configmap = of_kind(prod(), "ConfigMap")["parlor-grafana-dashboard"]
    loaded: dict[str, Any] = json.loads(configmap["data"]["parlor.json"])
    return loaded


def test_the_code_defines_the_metrics_it_promises() -> None:
    metrics = defined_metrics()
    assert "parlor_relay_lag_seconds" in metrics
    assert metrics["grpc_server_handled_total"] == {"grpc_service", "grpc_method", "grpc_code"}
    assert "le" in metrics["parlor_game_command_seconds_bucket"]


def test_prod_has_the_monitoring_resources_and_they_match_their_schemas() -> None:
    objects = prod()
    for kind in ("PodMonitor", "PrometheusRule"):
        (obj,) = of_kind(objects, kind).values()
        assert schema_errors(obj) == []
        assert obj["metadata"]["namespace"] == "parlor"
    (monitor,) = of_kind(objects, "PodMonitor").values()
    assert monitor["spec"]["podMetricsEndpoints"][0]["port"] == "metrics"
    assert monitor["spec"]["selector"]["matchLabels"]["app.kubernetes.io/part-of"] == "parlor"
    deployments = of_kind(objects, "Deployment").values()
    ports = {
        p["name"]
        for d in deployments
        for c in d["spec"]["template"]["spec"]["containers"]
        for p in c.get("ports", ())
    }
    assert "metrics" in ports


def test_every_alert_the_platform_needs_is_there_and_says_what_to_do() -> None:
    alerts = {r["alert"]: r for r in rules() if "alert" in r}
    assert set(alerts) >= NEEDED_ALERTS
    for name, rule in alerts.items():
        assert rule["labels"]["severity"] in {"warning", "critical"}, name
        assert rule["annotations"]["summary"], name
        assert rule["annotations"]["description"], name


@pytest.mark.parametrize("index", range(len(rules())))
def test_every_rule_queries_metrics_the_code_defines(index: int) -> None:
    rule = rules()[index]
    assert check_expression(str(rule["expr"])) == [], rule.get("alert")


def test_every_dashboard_panel_queries_metrics_the_code_defines() -> None:
    board = dashboard()
    panels = [p for p in board["panels"] if p["type"] != "row"]
    assert len(panels) >= 15
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    for item in panels:
        assert item["targets"], item["title"]
        assert item["gridPos"]["x"] >= 0
        assert item["gridPos"]["x"] + item["gridPos"]["w"] <= 24
        for target in item["targets"]:
            assert check_expression(target["expr"]) == [], item["title"]
    titles = " ".join(p["title"].lower() for p in panels)
    for subject in ("relay lag", "consumer lag", "set aside", "moves", "conflicts", "watchers"):
        assert subject in titles
    assert "matchmaking wait" in titles
    assert "dictionary latency" in titles


def test_the_dashboard_is_what_its_generator_writes_and_grafana_finds_it() -> None:
    spec = importlib.util.spec_from_file_location("dashboard", MONITORING / "dashboard.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (MONITORING / "dashboard.json").read_text() == module.render()
    configmap = of_kind(prod(), "ConfigMap")["parlor-grafana-dashboard"]
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert dashboard() == json.loads(module.render())


# The checks above are only worth something if they can fail: prove it on broken objects.


def test_the_checks_catch_an_unknown_metric_a_wrong_label_and_a_misspelt_rule_field() -> None:
    assert check_expression("rate(parlor_moves_made_total[5m])")
    assert check_expression('parlor_relay_lag_seconds{category="x"}')
    (rule,) = of_kind(prod(), "PrometheusRule").values()
    broken = json.loads(json.dumps(rule))
    broken["spec"]["groups"][0]["rules"][0]["fro"] = "5m"
    assert schema_errors(broken)
    broken = json.loads(json.dumps(rule))
    broken["spec"]["groups"][0]["rules"][0]["for"] = "five minutes"
    assert schema_errors(broken)
