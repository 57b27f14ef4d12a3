"""NATS users and permissions as deployed (issue 15, class 3), on a real nats-server.

The server runs with the dev overlay's own configuration (deploy/kustomize/overlays/dev/
nats.conf: a user per service, each allowed to publish only its own events); each service
connects as its user with the credentials its settings give. A service publishing
another's events (upwords forging MatchFormed, scoring forging GameFinished) or taking
another's consumer is refused by the server, and nothing reaches the stream.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from parlor.core.errors import Unavailable
from parlor.eventstore import JetStreamBus, Metadata, NatsCredentials, RecordedEvent, Subjects
from parlor.kit.settings import BackendSettings, load

pytestmark = pytest.mark.integration

CONFIG = Path(__file__).resolve().parents[3] / "deploy/kustomize/overlays/dev/nats.conf"
# the deployed_nats fixture (conftest.py) runs a nats-server with this configuration


def passwords() -> dict[str, str]:
    users = json.loads(CONFIG.read_text())["authorization"]["users"]
    return {u["user"]: u["password"] for u in users}


def event(stream_id: str, kind: str) -> RecordedEvent:
    return RecordedEvent(stream_id, 1, 1, kind, b"x", 1, Metadata(), datetime.now(UTC))


async def connect(url: str, user: str, password: str | None = None) -> JetStreamBus:
    """As a service does: its NATS user and password from its settings."""
    settings = load(
        BackendSettings,
        {
            "PARLOR_DATABASE_URL": "postgresql://unused",
            "PARLOR_NATS_URL": url,
            "PARLOR_NATS_USER": user,
            "PARLOR_NATS_PASSWORD": passwords()[user] if password is None else password,
        },
    )
    return await JetStreamBus.connect(
        url, Subjects(), credentials=NatsCredentials.of(settings), publish_timeout=1.0
    )


async def stored(bus: JetStreamBus) -> int:
    return int((await bus.js.stream_info(bus.subjects.stream)).state.messages)


async def test_each_service_publishes_its_own_events_and_no_one_elses(deployed_nats: Any) -> None:
    upwords = await connect(deployed_nats.url, "upwords")
    scoring = await connect(deployed_nats.url, "scoring")
    try:
        await upwords.ensure_streams()
        assert await upwords.publish_event(event("upwords-g1", "parlor.upwords.v1.TilesPlayed"))
        matches = await upwords.subscribe("upwords-matches", "parlor.events.matchmaking.*.*")
        await matches.close()
        with pytest.raises(Unavailable):  # a forged match: the server refuses the publish
            await upwords.publish_event(event("matchmaking-m1", "MatchFormed"))
        with pytest.raises(Unavailable):  # a forged result, by a service that publishes none
            await scoring.publish_event(event("upwords-g1", "GameFinished"))
        assert await stored(upwords) == 1
        with pytest.raises(Exception):  # noqa: B017 - nats-py's error types vary by call
            await upwords.subscribe("scoring", "parlor.events.*.*.GameFinished")
    finally:
        await upwords.close()
        await scoring.close()


async def test_a_wrong_password_is_refused(deployed_nats: Any) -> None:
    with pytest.raises(Unavailable):
        await connect(deployed_nats.url, "upwords", password="not-the-password")


async def test_a_service_reads_back_what_its_relay_published(deployed_nats: Any) -> None:
    """The relay checks the stream (``check_stream``: its last event) and every duplicate
    JetStream answers (the stream's message of that id: is it this event?): both read a
    message of the stream, which its service's user must be allowed to ask for."""
    upwords = await connect(deployed_nats.url, "upwords")
    try:
        await upwords.ensure_streams()
        sent = event("upwords-g2", "parlor.upwords.v1.TilesPlayed")
        assert await upwords.publish_event(sent)
        assert not await upwords.publish_event(sent)  # checked: the stream's message is it
        check = await upwords.check_stream(upwords.subjects.category("upwords"))
        assert check.last_position == sent.position
    finally:
        await upwords.close()
