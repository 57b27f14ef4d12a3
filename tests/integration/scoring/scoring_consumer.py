"""Scoring's consumer in a process of its own, which can die by SIGKILL after commit, before ack.

``python scoring_consumer.py DATABASE_URL NATS_URL PREFIX STREAM DURABLE [die-before-ack]``:
fetches GameFinished messages, applies each through the inbox as the scoring service does,
prints ``{"message_id": ..., "fresh": ...}`` per message; with ``die-before-ack`` the first
ack kills the process instead (the transaction has committed; the ack never leaves).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from datetime import timedelta
from typing import Any

from parlor.eventstore import Delivery, Inbox, JetStreamBus, PostgresEventStore, Subjects
from parlor.services.scoring.scorer import Scorer


class DieOnAck:
    def __init__(self, inner: Delivery) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def message_id(self) -> str:
        return self._inner.message_id

    async def ack(self) -> None:
        print(json.dumps({"committed": self._inner.message_id}), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)


async def main(url: str, nats_url: str, prefix: str, stream: str, durable: str, die: bool) -> None:
    store = PostgresEventStore(url)
    bus = await JetStreamBus.connect(nats_url, Subjects(prefix=prefix, stream=stream))
    scorer = Scorer(store, timedelta(days=7))
    inbox = Inbox(store.engine, durable)
    sub = await bus.subscribe(durable, f"{prefix}.*.*.GameFinished", ack_wait=1.0)
    print(json.dumps({"subscribed": True}), flush=True)
    while True:
        for delivery in await sub.fetch(10, max_wait=0.5):
            handed: Any = DieOnAck(delivery) if die else delivery
            fresh = await inbox.handle(handed, scorer.on_game_finished)
            await bus.nc.flush()  # the ack has reached the server
            print(json.dumps({"message_id": delivery.message_id, "fresh": fresh}), flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(*args[:5], die=args[5:] == ["die-before-ack"]))
