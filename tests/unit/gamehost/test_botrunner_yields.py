"""A bot runner never holds the event loop: with an idle of 0 (as fast tests set it) and no bot
due, its passes awaited nothing, so every other call of the process hung behind it (issue 43:
a platform with the takefour component did not answer even CreateTournament)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from parlor.gamehost.drivers.botrunner import BotRunner
from parlor.services.takefour.game import TakeFourSettings
from parlor.services.takefour.game import bots as takefour_bots


async def never(*_: Any) -> Any:
    raise AssertionError("no game to play")


@pytest.mark.timeout(20)  # a starved loop never comes back to the test: the timeout fails it
async def test_an_idle_of_zero_still_gives_the_other_tasks_their_turns() -> None:
    settings = TakeFourSettings(pause_seconds=0.0, idle_seconds=0.0, human_pace=False)
    runner = BotRunner(takefour_bots(words=lambda: ("CAT",)), settings, never, never, never)
    task = asyncio.create_task(runner.run())
    try:
        turns = 0
        loop = asyncio.get_running_loop()
        start = loop.time()
        while loop.time() - start < 0.2:  # another task of the process, taking its turns
            await asyncio.sleep(0.001)
            turns += 1
        assert turns > 10
        assert not task.done()
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
