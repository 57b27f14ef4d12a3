"""The backends' settings: how long the bus's stream keeps an event."""

from __future__ import annotations

import pytest

from parlor.eventstore.jetstream import DEFAULT_MAX_AGE
from parlor.kit.settings import BackendSettings, SettingsError, load

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
