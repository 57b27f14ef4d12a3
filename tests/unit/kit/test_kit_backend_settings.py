"""The backends' settings: how long the bus's stream keeps an event, and on how many servers;
how many partitions the event store's order splits into."""

from __future__ import annotations

import pytest

from parlor.eventstore.jetstream import DEFAULT_MAX_AGE, MAX_REPLICAS
from parlor.kit.settings import MAX_STREAM_REPLICAS, BackendSettings, SettingsError, load

BACKENDS = {"PARLOR_DATABASE_URL": "postgresql://db/parlor", "PARLOR_NATS_URL": "nats://nats"}


def test_the_stream_keeps_72_hours_unless_told_for_ever_or_at_least_an_hour() -> None:
    assert load(BackendSettings, BACKENDS).nats_stream_max_age == DEFAULT_MAX_AGE == 72 * 3600
    told = {**BACKENDS, "PARLOR_NATS_STREAM_MAX_AGE_HOURS": "168"}
    assert load(BackendSettings, told).nats_stream_max_age == 7 * 24 * 3600
    ever = {**BACKENDS, "PARLOR_NATS_STREAM_MAX_AGE_HOURS": "0"}
    assert load(BackendSettings, ever).nats_stream_max_age == 0
    for hours in ("0.5", "-1"):
        short = {**BACKENDS, "PARLOR_NATS_STREAM_MAX_AGE_HOURS": hours}
        with pytest.raises(SettingsError, match="PARLOR_NATS_STREAM_MAX_AGE_HOURS"):
            load(BackendSettings, short)


def test_the_stream_is_on_one_server_unless_told_up_to_five() -> None:
    assert load(BackendSettings, BACKENDS).nats_stream_replicas == 1
    told = {**BACKENDS, "PARLOR_NATS_STREAM_REPLICAS": "3"}
    assert load(BackendSettings, told).nats_stream_replicas == 3
    assert MAX_STREAM_REPLICAS == MAX_REPLICAS == 5  # JetStream's own limit
    for replicas in ("0", "6", "-1"):
        wrong = {**BACKENDS, "PARLOR_NATS_STREAM_REPLICAS": replicas}
        with pytest.raises(SettingsError, match="PARLOR_NATS_STREAM_REPLICAS"):
            load(BackendSettings, wrong)


def test_the_event_store_is_one_order_unless_told_up_to_1024_partitions() -> None:
    from parlor.eventstore.partitions import MAX_PARTITIONS
    from parlor.kit.settings import MAX_EVENT_PARTITIONS

    assert load(BackendSettings, BACKENDS).event_partitions == 1
    told = {**BACKENDS, "PARLOR_EVENT_PARTITIONS": "16"}
    assert load(BackendSettings, told).event_partitions == 16
    assert MAX_EVENT_PARTITIONS == MAX_PARTITIONS == 1024  # the store's own limit
    for partitions in ("0", "1025", "-1"):
        wrong = {**BACKENDS, "PARLOR_EVENT_PARTITIONS": partitions}
        with pytest.raises(SettingsError, match="PARLOR_EVENT_PARTITIONS"):
            load(BackendSettings, wrong)
