"""`parlor up` must stay up when nothing happens: every game service's match consumer
fetches batches from JetStream, and a fetch that finds nothing in time must read as "no
messages", never as an error (a failed background task stops the whole platform).

nats-py raises the built-in ``TimeoutError`` (not ``nats.errors.TimeoutError``) when its
no-wait probe is answered just as the deadline passes; tiny waits make that race certain.
"""

from __future__ import annotations

import pytest

from parlor.eventstore import JetStreamBus, Subjects

pytestmark = pytest.mark.integration


async def test_an_empty_fetch_is_no_messages_whenever_the_deadline_falls(
    nats_url: str, unique: str, scratch_stream_name: str
) -> None:
    subjects = Subjects(prefix=f"idle{unique}.events", stream=scratch_stream_name)
    bus = await JetStreamBus.connect(nats_url, subjects=subjects)
    try:
        await bus.ensure_streams()
        sub = await bus.subscribe(f"idle-{unique}", f"{subjects.prefix}.matchmaking.*.MatchFormed")
        for wait in [0.0005, 0.001, 0.002, 0.005] * 25:
            assert list(await sub.fetch(batch=50, max_wait=wait)) == []
        await sub.close()
    finally:
        await bus.nc.jetstream().delete_stream(subjects.stream)
        await bus.close()
