"""Every setting the code reads reaches every Deployment that reads it, from the right place.

Settings are found in the source: fields declared with ``setting("PARLOR_...", ...)`` in
a settings class, the classes a service (or a library it depends on) passes to
``load(...)``, and direct ``os.environ`` reads of ``PARLOR_*`` names. The parse is checked
against the running code: every module that declares settings is imported and its classes
registered in ``parlor.kit.settings.REGISTRY``.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from typing import Any

import pytest
from deploy_facts import (
    DEPLOY,
    DEV_ONLY,
    SECRET_SETTINGS,
    all_settings,
    environment,
    module_facts,
    of_kind,
    parlor_container,
    service_distributions,
    settings_needed,
)

CODE_SERVICES = sorted(service_distributions())
# Stand-ins for values in Secrets made outside the manifests (CloudNativePG's, the operator's).
PLACEHOLDER = {
    "PARLOR_DATABASE_URL": "postgresql://parlor:secret@parlor-db-rw:5432/parlor",
    "PARLOR_JWT_PRIVATE_KEY": "-----BEGIN PRIVATE KEY-----",
    "PARLOR_JWT_PUBLIC_KEYS": '{"keys": []}',
    "PARLOR_NATS_PASSWORD": "a-password",
    "PARLOR_OIDC_CLIENT_SECRETS": "{}",
}


def delivered(objects: tuple[dict[str, Any], ...], overlay: str, name: str) -> dict[str, Any]:
    container = parlor_container(of_kind(objects, "Deployment")[name])
    return {
        k: v for k, v in environment(container, objects, overlay).items() if k.startswith("PARLOR_")
    }


def test_settings_are_found_in_the_code() -> None:
    found = all_settings()
    # the kit's settings, which every service reads, are a floor for the parse
    assert {
        "PARLOR_GRPC_PORT",
        "PARLOR_JWT_PRIVATE_KEY",
        "PARLOR_DATABASE_URL",
        "PARLOR_NATS_URL",
    } <= set(found)
    assert found["PARLOR_DATABASE_URL"].required
    assert not found["PARLOR_GRPC_PORT"].required


def test_the_parse_agrees_with_the_settings_registry() -> None:
    """Import every module that declares settings and register its classes: same names, same
    required-ness as the source parse."""
    from parlor.kit import settings

    parsed = all_settings()
    for module in module_facts():
        if not module.classes:
            continue
        loaded = importlib.import_module(module.module)
        for cls_name, declared in module.classes.items():
            cls = getattr(loaded, cls_name)
            settings.register(cls)
            fields = {f.metadata["env"]: f for f in dataclasses.fields(cls) if "env" in f.metadata}
            assert set(fields) == {s.env for s in declared}, cls_name
            for s in declared:
                required = fields[s.env].default is dataclasses.MISSING
                assert required == s.required == parsed[s.env].required, s.env
    assert set(settings.REGISTRY) <= set(parsed)


@pytest.mark.parametrize("name", CODE_SERVICES)
def test_every_setting_a_service_reads_is_set_in_its_deployment(
    objects: tuple[dict[str, Any], ...], overlay: str, name: str
) -> None:
    needed = settings_needed(name)
    env = delivered(objects, overlay, name)
    missing = sorted(set(needed) - set(env))
    assert not missing, f"{name} reads {missing} but its Deployment in {overlay} does not set them"


@pytest.mark.parametrize("name", CODE_SERVICES)
def test_no_deployment_sets_a_setting_its_service_does_not_read(
    objects: tuple[dict[str, Any], ...], overlay: str, name: str
) -> None:
    """Catches misspelt names and settings left behind after the code moved on."""
    stray = sorted(set(delivered(objects, overlay, name)) - set(settings_needed(name)))
    assert not stray, f"{name} in {overlay} sets {stray}, which it never reads"


@pytest.mark.parametrize("name", CODE_SERVICES)
def test_secrets_come_only_from_secrets(
    objects: tuple[dict[str, Any], ...], overlay: str, name: str
) -> None:
    for env, source in delivered(objects, overlay, name).items():
        if env in SECRET_SETTINGS and not (source.kind == "value" and source.value == ""):
            assert source.kind == "secret", f"{env} of {name} comes from a {source.kind}"


@pytest.mark.parametrize("name", CODE_SERVICES)
def test_every_configured_value_parses(
    objects: tuple[dict[str, Any], ...], overlay: str, name: str
) -> None:
    """Load each settings class the service reads from the Deployment's values, as at start-up."""
    from parlor.kit.settings import load

    values: dict[str, str] = {}
    for k, v in delivered(objects, overlay, name).items():
        assert v.value is not None or k in PLACEHOLDER, f"{k}: add a stand-in value to PLACEHOLDER"
        values[k] = v.value if v.value is not None else PLACEHOLDER[k]
    needed = settings_needed(name)
    owners = {(s.module, s.owner) for s in needed.values() if s.owner != "os.environ"}
    for module, owner in owners:
        load(getattr(importlib.import_module(module), owner), values)


def test_the_configuration_reference_lists_every_setting_and_its_default() -> None:
    """deploy/README.md: one table row per setting, with the code's default."""
    from parlor.kit.settings import REGISTRY, register

    for module in module_facts():
        for cls_name in module.classes:
            register(getattr(importlib.import_module(module.module), cls_name))
    text = (DEPLOY / "README.md").read_text()
    rows = {
        m.group(1): m.group(2).strip()
        for m in re.finditer(r"^\| `(PARLOR_\w+)` \| ([^|]*)\|", text, re.M)
    }
    for env, info in all_settings().items():
        assert env in rows, f"{env} is missing from the configuration reference in deploy/README.md"
        expected = "required" if info.required else f"`{documented(REGISTRY[env].default)}`"
        assert rows[env] == expected, f"{env}: README says {rows[env]}, the code {expected}"
    assert set(rows) <= set(all_settings()), "the reference lists settings the code does not read"


def documented(default: object) -> str:
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, tuple):
        return ",".join(map(str, default))
    return str(default)


def test_development_only_settings_are_not_deployed() -> None:
    for s in all_settings().values():
        if s.dist in DEV_ONLY:
            assert not any(s.env in settings_needed(n) for n in CODE_SERVICES), s.env
