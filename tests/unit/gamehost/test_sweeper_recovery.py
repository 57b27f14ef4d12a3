"""A replica that died lost its last deadline notes: the sweepers started after it find
the games with an event after the index's mark and time them again (``Sweeper.recover``),
and every replica's passes (``Sweeper.catch_up``) move the mark on behind the games."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from kits.clock import FakeNow

from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.deadlines import MemoryDeadlines
from parlor.gamehost.host import Outcome
from parlor.gamehost.seating import OpenTable, Seat
from parlor.gamehost.sweeper import Sweeper
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.codec import Codec
from parlor.services.connect4x4.game import GAME as C4


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


def test_a_game_whose_notes_died_with_its_replica_still_times_out() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
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


def test_recovery_goes_on_from_the_mark_and_twice_changes_nothing() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        lost = host_of(store, now, Forgetful())
        await open_game(lost, "old")
        await open_game(lost, "new")
        index = MemoryDeadlines()
        sweeper = Sweeper(host_of(store, now, index), index, interval=1)
        assert await sweeper.recover() == 2
        assert await index.covered("connect4x4") == await store.head_position()
        assert await sweeper.recover() == 0  # nothing after the mark
        await open_game(lost, "later")
        assert await sweeper.recover() == 1
        now.at += timedelta(seconds=31)
        assert await index.due("connect4x4", now.at) == ["later", "new", "old"]
        assert await sweeper.sweep() == 3
        assert await sweeper.sweep() == 0

    asyncio.run(go())


def test_a_catch_up_covers_the_games_of_one_pass_before() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        index = MemoryDeadlines()
        sweeper = Sweeper(host_of(store, now, index), index, interval=1)
        assert await sweeper.recover() == 0
        await open_game(host_of(store, now, Forgetful()), "g")  # then its replica dies
        assert await sweeper.catch_up() == 0  # up to the head the recovery read
        assert await sweeper.catch_up() == 1  # up to the head the first catch-up read
        assert await index.covered("connect4x4") == await store.head_position()
        now.at += timedelta(seconds=31)
        assert await sweeper.sweep() == 1

    asyncio.run(go())


def test_a_game_whose_recovery_failed_keeps_the_mark_below_it() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        lost = host_of(store, now, Forgetful())
        await open_game(lost, "good")
        good_end = await store.head_position()
        await open_game(lost, "bad")
        broken = ["bad"]

        async def after(game_id: str, outcome: Outcome[Any, Any]) -> Outcome[Any, Any]:
            if game_id in broken:
                raise RuntimeError("a bug")
            return outcome

        index = MemoryDeadlines()
        sweeper = Sweeper(host_of(store, now, index), index, after, interval=1, chunk=1)
        await sweeper.recover()
        # Chunk by chunk (a position each here) up to the first of "bad"'s: looked at again.
        assert await index.covered("connect4x4") == good_end
        now.at += timedelta(seconds=31)
        assert await index.due("connect4x4", now.at) == ["good"]
        broken.clear()
        assert await sweeper.recover() == await store.head_position() - good_end
        assert await index.covered("connect4x4") == await store.head_position()
        assert await index.due("connect4x4", now.at) == ["bad", "good"]

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
