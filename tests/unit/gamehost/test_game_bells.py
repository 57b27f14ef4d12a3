"""A game's bell wakes a game's watchers once per new version, whoever announces it first."""

from __future__ import annotations

import asyncio
from typing import Any

from parlor.runtime.bells import GameBells


def test_a_ring_wakes_the_watchers_of_that_game_only() -> None:
    bell = GameBells()
    mine, other = bell.bell("g1"), bell.bell("g2")
    bell.ring("g1")
    assert mine.is_set()
    assert not other.is_set()


def test_the_bus_echo_of_an_announced_version_wakes_no_one() -> None:
    bell = GameBells()
    bell.ring("g1", 5)  # the local append of versions 4 and 5
    waiting = bell.bell("g1")  # a watcher that has read up to 5
    bell.ring("g1", 4)  # NATS brings 4 and 5 back
    bell.ring("g1", 5)
    assert not waiting.is_set()
    bell.ring("g1", 6)  # another replica appended 6
    assert waiting.is_set()


def test_a_ring_without_a_version_always_wakes() -> None:
    bell = GameBells()
    bell.ring("g1", 9)
    waiting = bell.bell("g1")
    bell.ring("g1")
    assert waiting.is_set()


def test_it_forgets_the_oldest_games_beyond_its_memory() -> None:
    bell = GameBells(remember=2)
    for game in ("a", "b", "c"):
        bell.ring(game, 3)
    waiting = bell.bell("a")
    bell.ring("a", 3)  # "a" was forgotten: a repeat wakes its watchers (one extra read, no loss)
    assert waiting.is_set()


def test_wait_returns_at_the_timeout_when_nobody_rings() -> None:
    async def run() -> None:
        bell = GameBells()
        await asyncio.wait_for(GameBells.wait(bell.bell("g"), 0.01), timeout=1)

    asyncio.run(run())


def test_a_forged_bus_version_cannot_silence_later_real_rings() -> None:
    bell = GameBells()
    bell.ring("g1", 3)  # a real local append
    bell.hint("g1", 10**18)  # anyone on NATS: "version 10^18"
    waiting = bell.bell("g1")
    bell.ring("g1", 4)  # the next real append
    assert waiting.is_set()
    waiting = bell.bell("g1")
    bell.hint("g1", 5)  # another replica's real append, seen on the bus
    assert waiting.is_set()
    waiting = bell.bell("g1")
    bell.hint("g1", 4)  # the bus echo of the local append still wakes no one
    assert not waiting.is_set()


class _Message:
    def __init__(self, subject: str, version: str) -> None:
        self.subject = subject
        self.headers = {"Parlor-Version": version}


class _Subscriptions:
    """Records the callback ring_from_bus subscribes with, to hand it messages directly."""

    def __init__(self) -> None:
        self.callback: Any = None

    async def subscribe(self, subject: str, cb: Any) -> Any:
        self.callback = cb
        return self

    async def unsubscribe(self) -> None:
        return None


def test_bus_messages_with_odd_or_huge_versions_only_wake_watchers() -> None:
    from types import SimpleNamespace

    from parlor.eventstore import Subjects
    from parlor.runtime.bells import ring_from_bus

    async def run() -> None:
        nc = _Subscriptions()
        bell = GameBells()
        await ring_from_bus(SimpleNamespace(nc=nc), Subjects(), "chess", bell)
        bell.ring("g1", 2)
        for version in ("²", "9" * 5000, "-1", "x"):
            waiting = bell.bell("g1")
            await nc.callback(_Message("parlor.events.chess.g1.X", version))  # never raises
            assert waiting.is_set()
        waiting = bell.bell("g1")
        bell.ring("g1", 3)  # a real append after all of them wakes the watcher at once
        assert waiting.is_set()

    asyncio.run(run())
