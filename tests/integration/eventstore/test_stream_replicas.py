"""The stream is kept on ``PARLOR_NATS_STREAM_REPLICAS`` servers, on the real NATS.

This session's NATS is one server without a cluster: it keeps a stream on 1 server and
refuses more (``replicas > 1 not supported in non-clustered mode``, err_code 10074). A
service configured for more than its NATS can place makes no stream and says why, naming
the setting, instead of running on a stream other than the one configured. On a cluster of
3 of this test's own (as the prod overlay's) the stream is kept on 3, an earlier stream on
1 is given them where the user may update it and used as it is, with a WARNING naming the
command, where it may not, and 5 cannot be placed (``no suitable peers``, 10005).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats.errors
import nats.js.errors
import pytest
from nats.js.api import StorageType, StreamConfig

from parlor.core.errors import Unavailable
from parlor.eventstore import JetStreamBus, NatsCredentials, Subjects
from parlor.kit.settings import BackendSettings, load

pytestmark = pytest.mark.integration


@pytest.fixture
def subjects(unique: str, scratch_stream_name: str) -> Subjects:
    return Subjects(prefix=f"t{unique}.events", stream=scratch_stream_name)


@pytest.fixture
async def admin(nats_url: str, subjects: Subjects) -> AsyncIterator[JetStreamBus]:
    """A connection that looks at the stream, and deletes it at the end."""
    bus = await JetStreamBus.connect(nats_url, subjects)
    try:
        yield bus
    finally:
        with contextlib.suppress(nats.js.errors.NotFoundError):
            await bus.js.delete_stream(subjects.stream)
        await bus.close()


async def replicas_of(admin: JetStreamBus) -> int:
    return int((await admin.js.stream_info(admin.subjects.stream)).config.num_replicas or 0)


async def test_the_stream_is_made_on_the_replicas_the_setting_names(
    nats_url: str, subjects: Subjects, admin: JetStreamBus
) -> None:
    settings = load(
        BackendSettings,
        {
            "PARLOR_DATABASE_URL": "postgresql://unused",
            "PARLOR_NATS_URL": nats_url,
            "PARLOR_NATS_STREAM_REPLICAS": "1",
        },
    )
    bus = await JetStreamBus.connect(nats_url, subjects, replicas=settings.nats_stream_replicas)
    try:
        assert bus.stream_config(subjects.stream, [subjects.all()]).num_replicas == 1
        await bus.ensure_streams()
        assert await replicas_of(admin) == 1
        await bus.ensure_streams()  # again: the same stream, nothing to change
        assert await replicas_of(admin) == 1
    finally:
        await bus.close()


async def test_more_replicas_than_nats_can_place_make_no_stream_and_name_the_setting(
    nats_url: str, subjects: Subjects, admin: JetStreamBus
) -> None:
    bus = await JetStreamBus.connect(nats_url, subjects, replicas=3)
    try:
        with pytest.raises(Unavailable, match="PARLOR_NATS_STREAM_REPLICAS=3") as refused:
            await bus.ensure_streams()
        assert "non-clustered" in str(refused.value)  # NATS's own words, passed on
        assert refused.value.reason == "BUS_UNAVAILABLE"
        with pytest.raises(nats.js.errors.NotFoundError):
            await admin.js.stream_info(subjects.stream)
        # A stream there already (an earlier setting's) is not used on the quiet either:
        # NATS refuses the configuration before it looks at the stream.
        await admin.ensure_streams()
        with pytest.raises(Unavailable, match="PARLOR_NATS_STREAM_REPLICAS=3"):
            await bus.ensure_streams()
        assert await replicas_of(admin) == 1
        # the relay's check, which makes a lost stream again, says it too
        await admin.js.delete_stream(subjects.stream)
        with pytest.raises(Unavailable, match="PARLOR_NATS_STREAM_REPLICAS=3"):
            await bus.check_stream(subjects.all())
    finally:
        await bus.close()


async def test_a_service_whose_nats_cannot_place_the_replicas_is_never_ready_and_says_why(
    nats_url: str, subjects: Subjects, admin: JetStreamBus, caplog: pytest.LogCaptureFixture
) -> None:
    """As a service opens its bus (``JetStreamBus.open``): it keeps trying, NOT_SERVING, and
    every try's WARNING names the setting to change."""
    caplog.set_level(logging.WARNING, logger="parlor.eventstore.jetstream")
    bus = await JetStreamBus.open(nats_url, subjects, replicas=3, max_backoff=0.2)
    try:
        await asyncio.sleep(1.0)
        assert not bus.ready.is_set()
        said = [m for m in caplog.messages if "PARLOR_NATS_STREAM_REPLICAS=3" in m]
        assert said, caplog.messages
        assert "retrying" in said[0]
    finally:
        await bus.close()
    with pytest.raises(nats.js.errors.NotFoundError):
        await admin.js.stream_info(subjects.stream)


async def test_a_stream_an_earlier_release_made_is_the_same_stream_on_one_replica(
    nats_url: str, subjects: Subjects, admin: JetStreamBus
) -> None:
    """Earlier releases gave no replica count (JetStream's default, 1): with the default
    setting their stream is taken as it is, nothing to update."""
    earlier = StreamConfig(
        name=subjects.stream,
        subjects=[subjects.all()],
        storage=StorageType.FILE,
        duplicate_window=admin.duplicate_window,
        max_age=admin.max_age,
    )
    await admin.js.add_stream(earlier)
    created = (await admin.js.stream_info(subjects.stream)).created
    bus = await JetStreamBus.connect(nats_url, subjects)
    try:
        await bus.ensure_streams()
    finally:
        await bus.close()
    info = await admin.js.stream_info(subjects.stream)
    assert (info.config.num_replicas, info.created) == (1, created)


# ---- on a cluster of 3, as the prod overlay's NATS ------------------------------------------

DEV_NATS_CONF = Path(__file__).resolve().parents[3] / "deploy/kustomize/overlays/dev/nats.conf"


async def connected(url: str, user: str = "", **options: Any) -> JetStreamBus:
    """A bus on a cluster once its JetStream answers (it elects a leader first), as a
    service connects: as ``user`` (the dev overlay's password) if one is named."""
    credentials = NatsCredentials()
    if user:
        users = json.loads(DEV_NATS_CONF.read_text())["authorization"]["users"]
        (password,) = [u["password"] for u in users if u["user"] == user]
        credentials = NatsCredentials(user=user, password=password)
    bus = await JetStreamBus.connect(url, Subjects(), credentials=credentials, **options)
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        try:
            await bus.js.account_info()
            return bus
        except (nats.errors.Error, TimeoutError):
            if asyncio.get_running_loop().time() > deadline:
                await bus.close()
                raise
            await asyncio.sleep(0.2)


async def test_on_a_cluster_of_3_the_stream_is_kept_on_3_and_an_earlier_one_is_given_them(
    nats_cluster: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="parlor.eventstore.jetstream")
    earlier = await connected(nats_cluster[0].url)  # replicas=1: as an earlier release
    later = await connected(nats_cluster[1].url, replicas=3)
    too_many = await connected(nats_cluster[2].url, replicas=5)
    try:
        with pytest.raises(Unavailable, match="PARLOR_NATS_STREAM_REPLICAS=5") as refused:
            await too_many.ensure_streams()
        assert "no suitable peers" in str(refused.value)
        await earlier.ensure_streams()
        assert await replicas_of(earlier) == 1
        await later.ensure_streams()  # NATS's user may update it (no users): it does
        info = await later.js.stream_info(later.subjects.stream)
        assert info.config.num_replicas == 3
        assert info.cluster is not None
        peers = {info.cluster.leader, *(p.name for p in info.cluster.replicas or ())} - {None}
        assert peers == {"parlor-0", "parlor-1", "parlor-2"}  # on every server
        # The stream there, one NATS cannot give 5 replicas is used as it is, and said.
        await too_many.ensure_streams()
        assert await replicas_of(later) == 3
        assert any(
            "on 3 replicas, not" in m and "PARLOR_NATS_STREAM_REPLICAS=5 is more than" in m
            for m in caplog.messages
        ), caplog.messages
    finally:
        for bus in (earlier, later, too_many):
            await bus.close()


async def test_a_service_that_may_not_change_the_replicas_uses_the_stream_and_says_how(
    deployed_nats_cluster: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    """The deployed users may create the stream, never update it: a stream an earlier
    setting made on 1 replica is used as it is, with the command an operator runs."""
    caplog.set_level(logging.WARNING, logger="parlor.eventstore.jetstream")
    earlier = await connected(deployed_nats_cluster[0].url, "upwords")
    later = await connected(deployed_nats_cluster[1].url, "upwords", replicas=3)
    try:
        await earlier.ensure_streams()
        await later.ensure_streams()  # no error: the service goes on
        assert await replicas_of(later) == 1
    finally:
        await earlier.close()
        await later.close()
    assert any(
        "on 1 replica, not for 72h (600s) on 3 replicas" in m
        and "nats stream edit PARLOR_EVENTS --max-age 72h --dupe-window 600s --replicas 3" in m
        for m in caplog.messages
    ), caplog.messages
