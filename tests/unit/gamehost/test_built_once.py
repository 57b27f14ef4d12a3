"""A slow value (a bot's word index) is built once, off the event loop, however many ask."""

from __future__ import annotations

import asyncio
import gc
import threading

from parlor.gamehost.bots.once import BuiltOnce


async def test_callers_that_come_during_the_build_wait_for_that_one_build() -> None:
    builds: list[str] = []
    release = threading.Event()

    def build() -> str:
        builds.append(threading.current_thread().name)
        release.wait(5)
        return "index"

    once = BuiltOnce(build)
    waiting = [asyncio.create_task(once.get()) for _ in range(3)]
    await asyncio.sleep(0.05)  # the loop is free while the worker thread builds
    release.set()
    assert await asyncio.gather(*waiting) == ["index"] * 3
    assert await once.get() == "index"
    assert len(builds) == 1
    assert builds[0] != threading.current_thread().name


async def test_what_the_build_made_is_left_out_of_the_collectors_rounds() -> None:
    # a word index is hundreds of thousands of objects that live as long as the process:
    # a full collection going through them stopped the event loop for 0.15-0.3 s
    def build() -> list[list[int]]:
        return [[n] for n in range(1000)]

    try:
        index = await BuiltOnce(build).get()
        tracked = {id(o) for o in gc.get_objects()}
        assert id(index) not in tracked
        assert not any(id(part) in tracked for part in index)
        assert gc.get_freeze_count() >= len(index)
    finally:
        gc.unfreeze()
