"""The tournament driver looks when something may be due, not every second.

It used to read the catalogue every ``PARLOR_TOURNAMENT_DRIVER_INTERVAL_SECONDS`` (1 s)
on every replica, tournaments or not. Now a step runs when a tournament changes (here, or
on another replica: its event on the bus), when a result is recorded, when an arena's time
is up, and at the interval (5 s) as the safety net. These tests give the safety net a
minute, so whatever happens in them happens because something woke the driver."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import nats

from parlor.eventstore import EventStore, Subjects
from parlor.gamehost.pipeline.games import games
from parlor.runtime.bells import ring_from_bus
from parlor.services.tournament.component import DriverBells
from parlor.services.tournament.driver import Driver
from parlor.services.tournament.tournaments import Tournaments, scaled_clock
from parlor.tournamentrules import Create, Join, Start
from parlor.tournamentrules.commands import Pause
from parlor.tournamentrules.settings import Settings
from parlor.tournamentrules.state import FINISHED, RUNNING

SAFETY_NET = 60.0
SCALE = 60.0
"""The tournaments' clock runs a minute a second here: a one-minute arena lasts a second."""


@contextlib.asynccontextmanager
async def driving(driver: Driver) -> AsyncIterator[Driver]:
    task = asyncio.create_task(driver.run(SAFETY_NET))
    try:
        yield driver
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def until(seconds: float, done: object) -> float:
    """Seconds until ``done()`` holds (fails after ``seconds``)."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if await done():  # type: ignore[operator]
            return time.monotonic() - start
        await asyncio.sleep(0.01)
    raise AssertionError(f"not done in {seconds} s")


async def test_an_idle_driver_does_not_look_again(tournament_store: EventStore) -> None:
    """No tournament changes: one step at the start and none in the next second and a half
    (it stepped every second before, reading the catalogue each time)."""
    driver = Driver(Tournaments(tournament_store), games(), scaled_clock(1.0))
    async with driving(driver):
        await asyncio.sleep(1.5)
        assert driver.steps == 1


async def test_an_arena_ends_when_its_time_is_up(tournament_store: EventStore) -> None:
    """An arena whose players cannot be paired (one paused) finishes when its minute (a
    second here) is up, not at the next safety-net look a minute later."""
    clock = scaled_clock(SCALE)
    tournaments = Tournaments(tournament_store)
    tid = f"arena{time.monotonic_ns()}"
    arena = Settings("ARENA", "connect4x4", max_players=4, duration_ms=60_000)
    await tournaments.execute(tid, lambda _: Create(arena, "org", clock()), "org")
    for player in ("ann", "bob"):
        await tournaments.execute(tid, lambda _, p=player: Join(p, False, clock()), player)
    await tournaments.execute(tid, lambda _: Start("org", clock()), "org")
    started = time.monotonic()
    await tournaments.execute(tid, lambda _: Pause("bob", clock()), "bob")
    driver = Driver(tournaments, games(), clock, SCALE)
    async with driving(driver):

        async def finished() -> bool:
            state, _ = await tournaments.load(tid)
            return bool(state.phase == FINISHED)

        await until(5.0, finished)
    assert 0.9 < time.monotonic() - started < 2.0
    assert driver.steps <= 3


async def test_another_replicas_change_wakes_the_driver_through_the_bus(
    tournament_store: EventStore, nats_url: str, unique: str
) -> None:
    """Another replica starts a tournament; its event on the bus (as the relay publishes it,
    from a connection of its own) wakes this replica's driver, which pairs it at once."""
    subjects = Subjects(prefix=f"t{unique}")
    here = Tournaments(tournament_store)
    there = Tournaments(tournament_store)
    driver = Driver(here, games(), scaled_clock(1.0))
    bells = DriverBells(driver.wake.set)
    listener = await nats.connect(nats_url)
    publisher = await nats.connect(nats_url)
    unsubscribe = await ring_from_bus(
        type("Bus", (), {"nc": listener})(), subjects, "tournament", bells
    )
    try:
        tid = f"swiss{unique}"
        swiss = Settings("SWISS", "connect4x4", max_players=4, rounds=1)
        await there.execute(tid, lambda _: Create(swiss, "org", 0), "org")
        for player in ("ann", "bob"):
            await there.execute(tid, lambda _, p=player: Join(p, False, 0), player)
        async with driving(driver):
            await asyncio.sleep(0.3)  # its first step: nothing running, nothing due
            steps = driver.steps
            await there.execute(tid, lambda _: Start("org", 1), "org")
            await publisher.publish(f"{subjects.prefix}.tournament.{tid}.TournamentStarted", b"")

            async def paired() -> bool:
                state, _ = await here.load(tid)
                return bool(state.phase == RUNNING and state.games)

            assert await until(3.0, paired) < 1.0
            assert driver.steps > steps
    finally:
        await unsubscribe()
        await listener.close()
        await publisher.close()
