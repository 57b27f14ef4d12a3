"""The process's relay is stopped for good, even by a library that swallows a cancellation."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from parlor.gamehost.backends import ProcessOutbox


async def test_a_stop_cancels_the_relay_until_it_has_ended() -> None:
    outbox = ProcessOutbox(("test",), cast(Any, None), cast(Any, None))
    cancels = 0

    async def stubborn() -> None:
        """Swallows its first two cancellations (as nats-py's wait_for can on 3.11)."""
        nonlocal cancels
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancels += 1
                if cancels > 2:
                    raise

    outbox._task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(outbox._stop(), 10)
    assert cancels == 3
    assert outbox._task is None


async def test_a_stop_that_is_itself_cancelled_leaves_the_relay_to_the_next() -> None:
    outbox = ProcessOutbox(("test",), cast(Any, None), cast(Any, None))
    release = asyncio.Event()

    async def slow_to_stop() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await release.wait()  # its clean-up takes a while
            raise

    relay = outbox._task = asyncio.create_task(slow_to_stop())
    await asyncio.sleep(0)
    first = asyncio.create_task(outbox._stop())
    await asyncio.sleep(0.05)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert outbox._task is relay  # not forgotten while it runs
    assert not relay.done()
    release.set()
    await asyncio.wait_for(outbox._stop(), 10)
    assert relay.cancelled()
    assert outbox._task is None
