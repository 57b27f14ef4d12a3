"""NATS's storage holds the event stream for as long as the services keep it there, on every
server the stream is replicated to.

The stream keeps ``PARLOR_NATS_STREAM_MAX_AGE_HOURS`` of events (its ``max_age``). JetStream
refuses every publish once its storage (``max_file_store``) is used up, and a volume that fills
before that stops JetStream; either stalls everything the bus carries. So in each overlay the
storage holds that age of events at the rate the overlay is sized for, and fits its volume
with room to spare (deploy/README.md, "How long NATS keeps events").
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from deploy_facts import DEPLOY, OVERLAYS, environment, of_kind, parlor_container, rendered

BYTES_PER_EVENT = 650
"""A message on the stream: subject, headers, payload and JetStream's own bytes (636 measured
on a stream of real games)."""
SIZING_RATE = {"dev": 4, "prod": 300}
"""Events per second each overlay's NATS is sized for (deploy/README.md)."""
UNITS = {"": 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def size(value: Any) -> int:
    """Bytes of a Kubernetes or NATS size (``64Gi``, ``805306368``)."""
    found = re.fullmatch(r"(\d+)(Ki|Mi|Gi|Ti)?", str(value))
    assert found, f"not a size: {value!r}"
    return int(found[1]) * UNITS[found[2] or ""]


def stream_setting(overlay: str, name: str) -> str:
    """A setting of the stream as every service with a bus gets it (one value)."""
    objects = rendered(overlay)
    values = set()
    for deployment in of_kind(objects, "Deployment").values():
        env = environment(parlor_container(deployment), objects, overlay)
        if "PARLOR_NATS_URL" in env:
            assert name in env, deployment["metadata"]["name"]
            values.add(env[name].value)
    assert len(values) == 1, f"services configure the stream differently: {name} {values}"
    return str(values.pop())


def max_age_hours(overlay: str) -> float:
    """PARLOR_NATS_STREAM_MAX_AGE_HOURS as every service that reads it gets it (one value)."""
    return float(stream_setting(overlay, "PARLOR_NATS_STREAM_MAX_AGE_HOURS"))


def nats_servers(overlay: str) -> int:
    """The JetStream servers of an overlay's NATS: dev's StatefulSet, prod's chart cluster."""
    if overlay == "dev":
        return int(of_kind(rendered("dev"), "StatefulSet")["nats"]["spec"].get("replicas", 1))
    values = yaml.safe_load((OVERLAYS["prod"] / "nats" / "values.yaml").read_text())
    cluster = values["config"]["cluster"]
    return int(cluster["replicas"]) if cluster.get("enabled") else 1


def storage(overlay: str) -> tuple[int, int]:
    """(JetStream's max_file_store, its volume) in an overlay."""
    if overlay == "dev":
        (claim,) = of_kind(rendered("dev"), "StatefulSet")["nats"]["spec"]["volumeClaimTemplates"]
        volume = claim["spec"]["resources"]["requests"]["storage"]
        conf = json.loads((OVERLAYS["dev"] / "nats.conf").read_text())
        return size(conf["jetstream"]["max_file_store"]), size(volume)
    values = yaml.safe_load((OVERLAYS["prod"] / "nats" / "values.yaml").read_text())
    files = values["config"]["jetstream"]["fileStore"]
    return size(files["maxSize"]), size(files["pvc"]["size"])


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
def test_the_nats_storage_holds_the_stream_for_as_long_as_it_keeps_events(overlay: str) -> None:
    hours = max_age_hours(overlay)
    assert hours > 0, "a stream kept for ever fills NATS's storage"
    stream = SIZING_RATE[overlay] * BYTES_PER_EVENT * hours * 3600
    limit, volume = storage(overlay)
    assert stream <= limit, f"{overlay}: {stream / 2**30:.1f} GiB of events, {limit} bytes kept"
    assert limit <= volume * 0.9, f"{overlay}: the volume fills before JetStream's limit"


def test_the_readme_gives_the_sizing_rule_and_each_overlays_figures() -> None:
    readme = (DEPLOY / "README.md").read_text()
    section = readme.split("### How long NATS keeps events", 1)[1].split("\n#", 1)[0]
    assert "events/s \u00d7 bytes/event \u00d7 age" in section  # a times sign
    for overlay in OVERLAYS:
        assert f"{SIZING_RATE[overlay]} events/s" in section, overlay
    limit, volume = storage("prod")
    assert f"`maxSize: {limit // 2**30}Gi`" in section
    assert f"{volume // 2**30}Gi" in section


@pytest.mark.parametrize(("overlay", "replicas"), [("dev", 1), ("prod", 3)])
def test_the_stream_is_on_every_nats_server_of_the_cluster(overlay: str, replicas: int) -> None:
    """PARLOR_NATS_STREAM_REPLICAS: prod's stream outlives a node of its 3; a NATS places no
    stream on more servers than it has (a lone server: 1), so the setting never exceeds them.
    Each replica holds the whole stream: the storage above is each server's."""
    assert int(stream_setting(overlay, "PARLOR_NATS_STREAM_REPLICAS")) == replicas
    assert replicas <= nats_servers(overlay)
    assert nats_servers("prod") == 3


def test_the_readme_says_each_overlays_replicas() -> None:
    readme = (DEPLOY / "README.md").read_text()
    section = readme.split("### How long NATS keeps events", 1)[1].split("\n#", 1)[0]
    assert "PARLOR_NATS_STREAM_REPLICAS" in section
