"""A replica that died lost its last deadline notes: the sweepers started after it find
the games of the store's newest events and time them again (``Sweeper.recover``)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from kits.clock import FakeNow

from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.deadlines import MemoryDeadlines
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


def test_recovery_looks_only_at_the_newest_events_and_twice_changes_nothing() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        lost = host_of(store, now, Forgetful())
        await open_game(lost, "old")
        await open_game(lost, "new")
        index = MemoryDeadlines()
        sweeper = Sweeper(host_of(store, now, index), index, interval=1, recover_events=2)
        assert await sweeper.recover() == 1
        assert await sweeper.recover() == 1
        now.at += timedelta(seconds=31)
        assert await index.due("connect4x4", now.at) == ["new"]
        assert await sweeper.sweep() == 1
        assert await sweeper.sweep() == 0

    asyncio.run(go())
