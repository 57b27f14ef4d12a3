"""Stopping a background task: a swallowed cancellation does not keep it running, and the
stopper's own cancellation is not swallowed (``parlor.eventstore.tasks``)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from parlor.eventstore.tasks import cancel_until_done


async def _swallows_one_cancel(ran_on: list[str]) -> None:
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        ran_on.append("swallowed")  # as nats-py's wait_for may on Python 3.11
    await asyncio.sleep(60)


async def test_a_task_that_swallows_a_cancellation_is_cancelled_again_until_it_ends() -> None:
    ran_on: list[str] = []
    task = asyncio.create_task(_swallows_one_cancel(ran_on))
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_until_done(task, every=0.05), 5)
    assert task.cancelled()
    assert ran_on == ["swallowed"]


async def test_a_failed_task_is_retrieved_not_raised() -> None:
    async def fails() -> None:
        raise RuntimeError("boom")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    await cancel_until_done(task)
    assert isinstance(task.exception(), RuntimeError)


async def test_the_stoppers_own_cancellation_goes_through() -> None:
    released = asyncio.Event()

    async def stubborn() -> None:
        while not released.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.01)

    task = asyncio.create_task(stubborn())
    stopper = asyncio.create_task(cancel_until_done(task, every=0.05))
    await asyncio.sleep(0.1)
    stopper.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopper
    assert not task.done()
    released.set()
    await task
