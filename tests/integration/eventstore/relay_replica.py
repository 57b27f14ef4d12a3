"""A relay replica in a process of its own, so a test can freeze it (SIGSTOP) and wake it.

``python relay_replica.py DATABASE_URL NATS_URL PREFIX STREAM LEASE_SECONDS [PARTITIONS]``
(the store's partitions, 1 if not given); prints one
JSON line ``{"leader": ..., "published": ...}`` whenever either changes, and stops on SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys

from parlor.eventstore import JetStreamBus, PostgresEventStore, Relay, Subjects


async def main(
    url: str, nats_url: str, prefix: str, stream: str, lease: float, partitions: int
) -> None:
    store = PostgresEventStore(url, poll_interval=0.2, partitions=partitions)
    bus = await JetStreamBus.connect(nats_url, Subjects(prefix=prefix, stream=stream))
    relay = Relay(
        store, bus, name="games", lease_seconds=lease, takeover_interval=0.1, poll_interval=0.2
    )
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    relay.start()
    last = None
    while not stop.is_set():
        state = {"leader": relay.is_leader, "published": relay.published}
        if state != last:
            print(json.dumps(state), flush=True)
            last = state
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.05)
    await relay.stop()
    print(json.dumps({"leader": False, "published": relay.published, "stopped": True}), flush=True)
    await bus.close()
    await store.close()


if __name__ == "__main__":
    url, nats_url, prefix, stream, lease = sys.argv[1:6]
    partitions = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    asyncio.run(main(url, nats_url, prefix, stream, float(lease), partitions))
