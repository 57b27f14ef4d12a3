"""The doorbell wakes a game's watchers once per new version, whoever announces it first."""

from __future__ import annotations

import asyncio

from parlor.gamehost.doorbell import Doorbell


def test_a_ring_wakes_the_watchers_of_that_game_only() -> None:
    bell = Doorbell()
    mine, other = bell.bell("g1"), bell.bell("g2")
    bell.ring("g1")
    assert mine.is_set()
    assert not other.is_set()


def test_the_bus_echo_of_an_announced_version_wakes_no_one() -> None:
    bell = Doorbell()
    bell.ring("g1", 5)  # the local append of versions 4 and 5
    waiting = bell.bell("g1")  # a watcher that has read up to 5
    bell.ring("g1", 4)  # NATS brings 4 and 5 back
    bell.ring("g1", 5)
    assert not waiting.is_set()
    bell.ring("g1", 6)  # another replica appended 6
    assert waiting.is_set()


def test_a_ring_without_a_version_always_wakes() -> None:
    bell = Doorbell()
    bell.ring("g1", 9)
    waiting = bell.bell("g1")
    bell.ring("g1")
    assert waiting.is_set()


def test_it_forgets_the_oldest_games_beyond_its_memory() -> None:
    bell = Doorbell(remember=2)
    for game in ("a", "b", "c"):
        bell.ring(game, 3)
    waiting = bell.bell("a")
    bell.ring("a", 3)  # "a" was forgotten: a repeat wakes its watchers (one extra read, no loss)
    assert waiting.is_set()


def test_wait_returns_at_the_timeout_when_nobody_rings() -> None:
    async def run() -> None:
        bell = Doorbell()
        await asyncio.wait_for(Doorbell.wait(bell.bell("g"), 0.01), timeout=1)

    asyncio.run(run())
