"""Every overlay renders offline, and every object it holds is valid for Kubernetes 1.30.

Core kinds go through ``kubernetes-validate --strict`` (unknown fields are errors). Custom
resources (Gateway, GRPCRoute, CloudNativePG Cluster, HelmChart) have no schema there: they
are checked against the closed JSON Schemas in deploy/schemas, and a custom kind with no
schema fails rather than passing unchecked.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from deploy_facts import (
    KUBERNETES_VERSION,
    NATS_HELMCHART,
    OVERLAYS,
    SCHEMAS,
    is_custom,
    kustomize,
    of_kind,
    schema_path,
    tool,
)
from referencing import Registry, Resource


def kubernetes_validate(
    objects: list[dict[str, Any]], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False))
    return subprocess.run(
        [tool("kubernetes-validate"), "--strict", "-k", KUBERNETES_VERSION, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def schema_errors(obj: dict[str, Any]) -> list[str]:
    """What is wrong with a custom resource, by its schema in deploy/schemas."""
    common = yaml.safe_load((SCHEMAS / "_common.yaml").read_text())
    registry = Registry().with_resource(
        "_common.yaml", Resource.from_contents(common, default_specification=_draft())
    )
    schema = yaml.safe_load(schema_path(obj).read_text())
    validator = jsonschema.Draft202012Validator(schema, registry=registry)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)
    ]


def _draft() -> Any:
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012


def with_nats_helmchart(tmp_path: Path) -> list[dict[str, Any]]:
    """The prod overlay plus the k3s/RKE2 HelmChart component, as its README says to add it."""
    overlay = tmp_path / "prod-k3s"
    overlay.mkdir()
    prod = os.path.relpath(OVERLAYS["prod"], overlay)  # kustomize takes relative paths only
    component = os.path.relpath(NATS_HELMCHART, overlay)
    (overlay / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: parlor\n"
        f"resources:\n  - {prod}\ncomponents:\n  - {component}\n"
    )
    return kustomize(overlay)


def test_every_object_of_every_overlay_is_valid_kubernetes(
    overlay: str, objects: tuple[dict[str, Any], ...], tmp_path: Path
) -> None:
    core = [o for o in objects if not is_custom(o)]
    assert len(core) > 30, f"the {overlay} overlay rendered only {len(core)} core objects"
    done = kubernetes_validate(core, tmp_path)
    lines = done.stdout.splitlines() + done.stderr.splitlines()
    problems = [line for line in lines if not line.startswith("INFO")]
    assert not problems, "\n".join(problems)
    assert done.returncode == 0, done.stdout + done.stderr
    passed = [line for line in lines if " passed for resource " in line]
    assert len(passed) == len(core), f"{len(passed)} of {len(core)} objects were validated"


def test_every_custom_resource_matches_its_schema(
    overlay: str, objects: tuple[dict[str, Any], ...]
) -> None:
    custom = [o for o in objects if is_custom(o)]
    assert {o["kind"] for o in custom} >= {"Gateway", "GRPCRoute"}
    for obj in custom:
        assert schema_errors(obj) == [], f"{obj['kind']}/{obj['metadata']['name']}"


def test_only_kinds_with_a_schema_are_custom(
    overlay: str, objects: tuple[dict[str, Any], ...]
) -> None:
    """A kind outside the core API with no schema in deploy/schemas would go unchecked."""
    core_groups = {"", "apps", "batch", "autoscaling", "policy", "networking.k8s.io"}
    for obj in objects:
        group = obj["apiVersion"].rpartition("/")[0]
        assert group in core_groups or is_custom(obj), (
            f"{obj['kind']} ({obj['apiVersion']}) needs a schema in deploy/schemas"
        )


def test_prod_with_the_nats_helmchart_component_is_valid(tmp_path: Path) -> None:
    objects = with_nats_helmchart(tmp_path)
    (chart,) = of_kind(objects, "HelmChart").values()
    assert schema_errors(chart) == []
    assert chart["spec"]["targetNamespace"] == chart["metadata"]["namespace"] == "parlor"
    core = [o for o in objects if not is_custom(o)]
    assert kubernetes_validate(core, tmp_path).returncode == 0


def test_helmchart_values_are_the_documented_values_file() -> None:
    values = yaml.safe_load((OVERLAYS["prod"] / "nats" / "values.yaml").read_text())
    chart = yaml.safe_load((NATS_HELMCHART / "helmchart.yaml").read_text())
    assert yaml.safe_load(chart["spec"]["valuesContent"]) == values
    assert values["config"]["jetstream"]["enabled"] is True
    assert values["fullnameOverride"] == "nats"


def test_dev_runs_single_postgres_and_nats_with_jetstream() -> None:
    from deploy_facts import rendered

    sets = of_kind(rendered("dev"), "StatefulSet")
    assert sets["postgres"]["spec"]["replicas"] == 1
    assert sets["nats"]["spec"]["replicas"] == 1
    (nats,) = sets["nats"]["spec"]["template"]["spec"]["containers"]
    assert "-js" in nats["args"]


def test_prod_runs_postgres_from_cloudnativepg() -> None:
    from deploy_facts import rendered

    (cluster,) = of_kind(rendered("prod"), "Cluster").values()
    assert cluster["spec"]["instances"] >= 3
    assert cluster["metadata"]["name"] == "parlor-db"  # its Secret parlor-db-app feeds the URL
    assert not of_kind(rendered("prod"), "StatefulSet")


# The checks above are only worth something if they can fail: prove it on broken objects.


def test_validator_rejects_an_unknown_field(tmp_path: Path) -> None:
    from deploy_facts import rendered

    deployment = dict(of_kind(rendered("dev"), "Deployment")["dictionary"])
    deployment["spec"] = {**deployment["spec"], "replica": 3}
    done = kubernetes_validate([deployment], tmp_path)
    assert done.returncode != 0
    assert "replica" in done.stdout + done.stderr


def test_schema_rejects_a_misspelt_grpcroute_field() -> None:
    from deploy_facts import rendered

    route = dict(of_kind(rendered("dev"), "GRPCRoute")["parlor"])
    rule = {**route["spec"]["rules"][0], "backendRef": route["spec"]["rules"][0]["backendRefs"]}
    del rule["backendRefs"]
    route["spec"] = {**route["spec"], "rules": [rule]}
    assert schema_errors(route)


@pytest.mark.parametrize("name", ["kubectl", "kubernetes-validate", "hadolint"])
def test_tools_are_installed(name: str) -> None:
    assert Path(tool(name)).exists()
