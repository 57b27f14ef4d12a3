"""NATS users and permissions as deployed (issue 15, class 3), on a real nats-server.

The server runs with the dev overlay's own configuration (deploy/kustomize/overlays/dev/
nats.conf: a user per service, each allowed to publish only its own events); each service
connects as its user with the credentials its settings give. A service publishing
another's events (upwords forging MatchFormed, scoring forging GameFinished) or taking
another's consumer is refused by the server, and nothing reaches the stream.
"""

from __future__ import annotations

import json
import logging
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


async def connect(
    url: str, user: str, password: str | None = None, **options: float
) -> JetStreamBus:
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
    options.setdefault("max_age", settings.nats_stream_max_age)
    return await JetStreamBus.connect(
        url,
        Subjects(),
        credentials=NatsCredentials.of(settings),
        publish_timeout=1.0,
        **options,
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


async def test_a_stream_a_service_may_not_reconfigure_is_used_as_it_is_and_said(
    deployed_nats: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A stream an earlier release made (no max_age) cannot be given the age by a service
    (no user may update the stream): the service uses it as it is, says what an operator
    should change, and is ready; its relay reads the stream's own max_age."""
    caplog.set_level(logging.WARNING, logger="parlor.eventstore.jetstream")
    earlier = await connect(deployed_nats.url, "upwords", max_age=0.0)
    try:
        await earlier.ensure_streams()
    finally:
        await earlier.close()
    upwords = await connect(deployed_nats.url, "upwords")
    try:
        await upwords.ensure_streams()  # no error: the service goes on
        assert (await upwords.js.stream_info(upwords.subjects.stream)).config.max_age == 0
        assert (await upwords.check_stream(upwords.subjects.category("upwords"))).max_age == 0
        assert await upwords.publish_event(event("upwords-g3", "parlor.upwords.v1.TilesPlayed"))
    finally:
        await upwords.close()
    assert any(
        "keeps messages for ever" in m and "nats stream edit PARLOR_EVENTS --max-age 72h" in m
        for m in caplog.messages
    )


async def test_chat_publishes_its_rooms_news_and_hears_it_and_nothing_else(
    deployed_nats: Any,
) -> None:
    """The chat user publishes its own lane (``chat.<room>``, payloads emptied by the relay),
    reads back what its relay published, and hears its rooms' news (the bells); it cannot
    forge a game's event or a match."""
    chat = await connect(deployed_nats.url, "chat")
    try:
        await chat.ensure_streams()
        sent = event("chat-lobby", "MessagePosted")
        assert await chat.publish_event(sent)
        assert not await chat.publish_event(sent)  # a duplicate, checked against the stream
        heard = await chat.nc.subscribe("parlor.events.chat.>")
        await chat.nc.publish("parlor.events.chat.lobby.MessagePosted", b"")
        assert (await heard.next_msg(timeout=10)).subject.endswith(".lobby.MessagePosted")
        await heard.unsubscribe()
        for forged in (event("upwords-g9", "GameFinished"), event("matchmaking-m9", "MatchFormed")):
            with pytest.raises(Unavailable):
                await chat.publish_event(forged)
    finally:
        await chat.close()
