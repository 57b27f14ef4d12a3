"""The bots' pool (``gamehost.thinking``): searches run in worker processes (off the event
loop and its GIL), bounded in number and in time."""

from __future__ import annotations

import os
import time

import pytest

from parlor.core.errors import RuleViolation, Unavailable
from parlor.gamehost.bots.thinking import Thinking


async def test_a_search_runs_in_a_worker_process() -> None:
    pool = Thinking(workers=1)
    try:
        assert await pool.think(os.getpid) != os.getpid()
        assert await pool.think(os.getpid, in_thread=True) == os.getpid()
    finally:
        pool.close(wait=True)


async def test_a_search_that_outlives_its_time_is_given_up() -> None:
    pool = Thinking(workers=0, think_seconds=0.05)
    try:
        with pytest.raises(Unavailable) as slow:
            await pool.think(time.sleep, 0.5)
        assert slow.value.reason == "BOT_TOO_SLOW"
    finally:
        pool.close(wait=True)


def refuse(rule: str) -> None:
    raise RuleViolation(rule, f"the rules say no: {rule}")


async def test_a_searchs_refusal_comes_back_whole_and_the_pool_goes_on() -> None:
    """A rule's refusal cannot be pickled as it is (``RuleViolation`` takes a rule first):
    it came back as a broken pool, and every later search failed."""
    pool = Thinking(workers=1)
    try:
        with pytest.raises(RuleViolation) as refused:
            await pool.think(refuse, "GAME_OVER")
        assert (refused.value.reason, refused.value.message) == (
            "GAME_OVER",
            "the rules say no: GAME_OVER",
        )
        assert await pool.think(os.getpid) != os.getpid()
    finally:
        pool.close(wait=True)
