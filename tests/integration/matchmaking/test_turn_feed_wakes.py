"""The turn feed steps when a game moves, not every half second.

It used to read the store's head every ``PARLOR_TURN_FEED_POLL_SECONDS`` on every replica,
games moving or not. Now a game event on the bus (``GameNews``) wakes it, never sooner than
that pause after its last step, and ``PARLOR_TURN_FEED_IDLE_SECONDS`` is the safety net.
Here the game's move is appended by another replica (a store of its own, its own
connections) and published by it as its relay would (a NATS connection of its own); the
feed's replica hears it on its own connection."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import nats
import pytest

from parlor.eventstore import ANY_VERSION, NewEvent, PostgresEventStore, Subjects, migrate
from parlor.runtime.bells import ring_from_bus
from parlor.services.matchmaking.games import GAME_TYPES
from parlor.services.matchmaking.turnfeed import GameNews, TurnFeed

pytestmark = [pytest.mark.integration]

POLL = 0.5
"""The feed's least pause between steps (its poll before)."""


class Replicas:
    def __init__(self, url: str, nats_url: str, unique: str) -> None:
        self.url, self.nats_url = url, nats_url
        self.subjects = Subjects(prefix=f"tf{unique}")
        self.noticed: list[tuple[float, str]] = []

    async def __aenter__(self) -> Replicas:
        await migrate(self.url)
        self.here = PostgresEventStore(self.url)
        self.there = PostgresEventStore(self.url)
        self.listener = await nats.connect(self.nats_url)
        self.publisher = await nats.connect(self.nats_url)
        self.feed = TurnFeed(
            self.here, [GAME_TYPES["connect4x4"]], poll_seconds=POLL, idle_seconds=60.0
        )

        async def notice(game: Any, game_id: str) -> int:  # the feed's own work, timed
            self.noticed.append((time.monotonic(), game_id))
            return 1

        self.feed._notice = notice  # type: ignore[method-assign]
        self.unsubscribe = await ring_from_bus(
            type("Bus", (), {"nc": self.listener})(),
            self.subjects,
            "connect4x4",
            GameNews(self.feed.wake.set),
        )
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.unsubscribe()
        await self.listener.close()
        await self.publisher.close()
        await self.here.close()
        await self.there.close()

    async def move(self, game_id: str) -> float:
        """Another replica's move in ``game_id``: appended, then published; when."""
        at = time.monotonic()
        await self.there.append(f"connect4x4-{game_id}", [NewEvent("Moved", b"")], ANY_VERSION)
        await self.publisher.publish(f"{self.subjects.prefix}.connect4x4.{game_id}.Moved", b"")
        return at

    async def noticed_at(self, game_id: str, within: float = 5.0) -> float:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            found = [at for at, g in self.noticed if g == game_id]
            if found:
                return found[-1]
            await asyncio.sleep(0.005)
        raise AssertionError(f"{game_id} not noticed in {within} s")


@contextlib.asynccontextmanager
async def running(feed: TurnFeed) -> AsyncIterator[TurnFeed]:
    task = asyncio.create_task(feed.run())
    try:
        yield feed
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_quiet_feed_does_not_step_and_a_move_is_noticed_at_once(
    database_url: str, nats_url: str, unique: str
) -> None:
    """No game moving: no step after the first (it stepped twice a second before). Another
    replica's move then is noticed within a fraction of the old half-second poll."""
    async with Replicas(database_url, nats_url, unique) as r, running(r.feed) as feed:
        await asyncio.sleep(1.5)
        assert feed.steps == 1
        for n in range(3):
            at = await r.move(f"q{n}{unique}")
            assert await r.noticed_at(f"q{n}{unique}") - at < 0.25
            await asyncio.sleep(POLL + 0.1)  # past the pause: the next move wakes it at once


async def test_moves_in_a_burst_share_steps_and_each_is_noticed_within_the_pause(
    database_url: str, nats_url: str, unique: str
) -> None:
    """Twenty moves over two seconds: each noticed within the pause (as at worst before),
    in at most one step a pause (as before), not one step a move."""
    async with Replicas(database_url, nats_url, unique) as r, running(r.feed) as feed:
        await asyncio.sleep(0.2)
        steps = feed.steps
        made = [(await r.move(f"b{n}{unique}"), f"b{n}{unique}") for n in range(1)]
        for n in range(1, 20):
            await asyncio.sleep(0.1)
            made.append((await r.move(f"b{n}{unique}"), f"b{n}{unique}"))
        for at, game_id in made:
            assert await r.noticed_at(game_id) - at < POLL + 0.25
        assert feed.steps - steps <= 2.0 / POLL + 2
