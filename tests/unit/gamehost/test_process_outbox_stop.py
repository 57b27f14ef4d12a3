"""The process's relay is stopped for good, even by a library that swallows a cancellation."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from parlor.runtime.backends import ProcessOutbox


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


async def test_a_stop_ends_the_relay_itself_not_only_the_task_around_it() -> None:
    # The relay's task also runs its metrics; once those are cancelled (at once), the task
    # around the relay must not be done while the relay, which swallowed the cancellation,
    # runs on: the bus would be closed under a relay that keeps its lanes' leases.
    outbox = ProcessOutbox(("test",), cast(Any, None), cast(Any, None))
    cancels = 0
    ended = asyncio.Event()

    async def swallows_one_cancel() -> None:
        """Swallows its first cancellation and runs on (for a few seconds, not forever)."""
        nonlocal cancels
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancels += 1
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancels += 1
            raise
        finally:
            ended.set()

    outbox.relay = cast(Any, SimpleNamespace(lanes={}, run=swallows_one_cancel))
    component_task = asyncio.create_task(outbox.run())
    await asyncio.sleep(0.05)
    component_task.cancel()  # as Server.stop cancels the component's tasks
    await asyncio.wait_for(asyncio.gather(component_task, return_exceptions=True), 10)
    assert ended.is_set(), "the relay runs on after its outbox stopped"
    assert cancels == 2
    assert outbox._task is None
