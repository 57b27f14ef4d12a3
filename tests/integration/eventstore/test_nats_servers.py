"""``PARLOR_NATS_URL`` may list several servers, comma-separated (a NATS cluster's seeds):
the bus connects through whichever answers. nats-py reads a string as one server's URL, so
the list was one malformed address and the connect waited out its timeout."""

from __future__ import annotations

import socket

import pytest

from parlor.eventstore import JetStreamBus, Subjects

pytestmark = pytest.mark.integration


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_list_of_servers_connects_through_one_that_answers(
    nats_url: str, unique: str, scratch_stream_name: str
) -> None:
    listed = f"nats://127.0.0.1:{_closed_port()}, {nats_url}"
    subjects = Subjects(prefix=f"t{unique}.events", stream=scratch_stream_name)
    bus = await JetStreamBus.connect(listed, subjects)
    try:
        assert bus.nc.is_connected
        await bus.ensure_streams()
        await bus.js.delete_stream(subjects.stream)
    finally:
        await bus.close()
