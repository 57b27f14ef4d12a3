"""A replica that died lost its last deadline notes: the sweepers started after it find
the games with an event after the index's mark and time them again (``Sweeper.recover``),
and every replica's passes (``Sweeper.catch_up``) move the mark on behind the games."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

import pytest
from kits.clock import FakeNow

from parlor.core.errors import Unavailable
from parlor.eventstore import InMemoryEventStore
from parlor.eventstore.cursors import heads, partition_key
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.deadlines import MemoryDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import Codec

BOTH = pytest.mark.parametrize("partitions", [1, 4], ids=["P1", "P4"])
"""The store's order in one partition, and split into four: recovery follows each."""


async def marks(index: MemoryDeadlines, store: InMemoryEventStore) -> tuple[int, ...]:
    """The index's mark of each partition of the store's order (one: the game type's)."""
    return tuple(
        [await index.covered(partition_key("connect4x4", p)) for p in range(store.partitions)]
    )


class Forgetful(MemoryDeadlines):
    """The index of a replica killed before its notes were flushed: none reached the table."""

    async def schedule(self, *_: Any) -> None:
        return None


def host_of(
    store: InMemoryEventStore, now: FakeNow, index: MemoryDeadlines
) -> GameHost[Any, Any, Any]:
    return GameHost("connect4x4", C4.decider, Codec(), store, now=now, deadlines=index)


async def open_game(host: GameHost[Any, Any, Any], game_id: str) -> None:
    create = c4.CreateGame(c4.Config(players=2))
    seats = (Seat("ada"), Seat("bob"))
    await host.create(game_id, OpenTable(seats, create, TimeControl.per_move(30), False))
    await host.execute(game_id, c4.DropChecker(0, 3, c4.Side.FRONT), actor="ada")


@BOTH
def test_a_game_whose_notes_died_with_its_replica_still_times_out(partitions: int) -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(partitions=partitions), FakeNow()
        await open_game(host_of(store, now, Forgetful()), "g")  # then the replica is killed
        index = MemoryDeadlines()  # the table as the crash left it: no row for "g"
        sweeper = Sweeper(host_of(store, now, index), index, interval=1)
        now.at += timedelta(seconds=31)
        assert await sweeper.sweep() == 0, "no row: the sweep alone never sees the game"
        assert await sweeper.recover() == 1
        assert await sweeper.sweep() == 1
        table, _ = await sweeper.host.load("g")
        assert table.game.timed_out == (False, True)
        assert await sweeper.sweep() == 0  # once

    asyncio.run(go())


@BOTH
def test_recovery_goes_on_from_the_mark_and_twice_changes_nothing(partitions: int) -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(partitions=partitions), FakeNow()
        lost = host_of(store, now, Forgetful())
        await open_game(lost, "old")
        await open_game(lost, "new")
        index = MemoryDeadlines()
        sweeper = Sweeper(host_of(store, now, index), index, interval=1)
        assert await sweeper.recover() == 2
        assert await marks(index, store) == await heads(store)
        assert await sweeper.recover() == 0  # nothing after the mark
        await open_game(lost, "later")
        assert await sweeper.recover() == 1
        now.at += timedelta(seconds=31)
        assert await index.due("connect4x4", now.at) == ["later", "new", "old"]
        assert await sweeper.sweep() == 3
        assert await sweeper.sweep() == 0

    asyncio.run(go())


@BOTH
def test_a_catch_up_covers_the_games_of_one_pass_before(partitions: int) -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(partitions=partitions), FakeNow()
        index = MemoryDeadlines()
        sweeper = Sweeper(host_of(store, now, index), index, interval=1)
        assert await sweeper.recover() == 0
        await open_game(host_of(store, now, Forgetful()), "g")  # then its replica dies
        assert await sweeper.catch_up() == 0  # up to the head the recovery read
        assert await sweeper.catch_up() == 1  # up to the head the first catch-up read
        assert await marks(index, store) == await heads(store)
        now.at += timedelta(seconds=31)
        assert await sweeper.sweep() == 1

    asyncio.run(go())


class Undecidable(GameHost[Any, Any, Any]):
    """A host on which the games in ``broken`` fail to load (their events cannot be decided)."""

    broken: set[str]

    async def load(self, game_id: str, version: int | None = None) -> Any:
        if game_id in self.broken:
            raise RuntimeError("a bug")
        return await super().load(game_id, version)


def undecidable_host(
    store: InMemoryEventStore, now: FakeNow, index: MemoryDeadlines, *broken: str
) -> Undecidable:
    host = Undecidable("connect4x4", C4.decider, Codec(), store, now=now, deadlines=index)
    host.broken = set(broken)
    return host


class Failing(MemoryDeadlines):
    """An index whose ``retry_at`` meets the store down while ``down`` is set."""

    down = False

    async def retry_at(self, category: str, game_id: str, at: datetime) -> None:
        if self.down:
            raise Unavailable("the deadline index is unavailable")
        await super().retry_at(category, game_id, at)


@BOTH
def test_a_game_whose_recovery_always_fails_is_left_to_the_sweep_and_the_mark_moves_on(
    partitions: int, caplog: pytest.LogCaptureFixture
) -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(partitions=partitions), FakeNow()
        lost = host_of(store, now, Forgetful())
        await open_game(lost, "bad")
        await open_game(lost, "good")
        index = MemoryDeadlines()
        host = undecidable_host(store, now, index, "bad")
        sweeper = Sweeper(host, index, interval=2, max_backoff=10)
        with caplog.at_level(logging.ERROR, "parlor.gamehost.sweeper"):
            assert await sweeper.recover() == 2
        assert [r.game_id for r in caplog.records] == ["bad"]  # type: ignore[attr-defined]
        # The mark passed it: no pass loads the games touched since it again.
        assert await marks(index, store) == await heads(store)
        assert await sweeper.recover() == 0
        # But the sweep has it: due after the backoff, longer apart at each failure.
        assert await index.due("connect4x4", now.at + timedelta(seconds=1)) == []
        assert await index.due("connect4x4", now.at + timedelta(seconds=2)) == ["bad"]
        for expected in (4, 8, 10, 10):
            now.advance(1000)
            await sweeper.sweep()
            later = now.at + timedelta(seconds=expected - 1)
            assert "bad" not in await index.due("connect4x4", later)
            assert "bad" in await index.due("connect4x4", later + timedelta(seconds=1))
        # Mended: the next sweep times it out (its 30 s ran out long ago) and forgets it.
        host.broken.clear()
        now.advance(1000)
        assert await sweeper.sweep() == 1
        table, _ = await host.load("bad")
        assert table.game.timed_out == (False, True)
        assert sweeper.failures == {}

    asyncio.run(go())


def test_the_index_down_when_a_failed_game_is_left_to_the_sweep_stops_the_pass() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        lost = host_of(store, now, Forgetful())
        await open_game(lost, "good")
        good_end = await store.head_position()
        await open_game(lost, "bad")
        index = Failing()
        index.down = True
        host = undecidable_host(store, now, index, "bad")
        assert await store.head_position() == 2 * good_end
        sweeper = Sweeper(host, index, interval=1, chunk=good_end)  # a chunk for each game
        with pytest.raises(Unavailable):
            await sweeper.recover()
        # Up to the chunk before "bad"'s: the next pass looks at it again.
        assert await index.covered("connect4x4") == good_end
        index.down = False
        assert await sweeper.recover() == 1
        assert await marks(index, store) == await heads(store)
        assert sweeper.failures == {"bad": 2}  # each pass counts: the second waits 2 s
        assert await index.due("connect4x4", now.at + timedelta(seconds=2)) == ["bad"]

    asyncio.run(go())


def test_the_running_sweeper_catches_up_by_itself() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        index = MemoryDeadlines()
        sweeper = Sweeper(host_of(store, now, index), index, interval=0.01, cover_seconds=0.02)
        running = asyncio.create_task(sweeper.run())
        try:
            await asyncio.sleep(0.05)
            await open_game(host_of(store, now, Forgetful()), "g")
            head = await store.head_position()
            for _ in range(500):
                if await index.covered("connect4x4") >= head:
                    break
                await asyncio.sleep(0.01)
            assert await index.due("connect4x4", now.at + timedelta(seconds=31)) == ["g"]
        finally:
            running.cancel()

    asyncio.run(go())


class Backlog(InMemoryEventStore):
    """A big store to recover: its reads of the games touched wait until ``more`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.more = asyncio.Event()

    async def streams_touched(self, category: str, after: int, through: int) -> list[str]:
        await self.more.wait()
        return await super().streams_touched(category, after, through)


def test_the_sweeps_start_at_once_beside_a_long_recovery() -> None:
    async def go() -> None:
        store, now = Backlog(), FakeNow()
        index = MemoryDeadlines()
        host = host_of(store, now, index)
        await open_game(host, "noted")  # its row is in the index
        await open_game(host_of(store, now, Forgetful()), "lost")  # only recovery finds it
        now.advance(31)
        sweeper = Sweeper(host, index, interval=0.01, cover_seconds=0.02)
        running = asyncio.create_task(sweeper.run())
        try:
            for _ in range(500):
                table, _ = await host.load("noted")
                if table.game.timed_out != (False, False):
                    break
                await asyncio.sleep(0.01)
            assert table.game.timed_out == (False, True), "timed out while recovery reads"
            assert await index.covered("connect4x4") == 0
            assert "lost" not in await index.due("connect4x4", now.at)  # not found yet
            store.more.set()  # the recovery reads on, and finds "lost"
            head = await store.head_position()
            for _ in range(500):
                if await index.covered("connect4x4") >= head:
                    break
                await asyncio.sleep(0.01)
            for _ in range(500):
                lost, _ = await host.load("lost")
                if lost.game.timed_out != (False, False):
                    break
                await asyncio.sleep(0.01)
            assert lost.game.timed_out == (False, True)
        finally:
            running.cancel()

    asyncio.run(go())
