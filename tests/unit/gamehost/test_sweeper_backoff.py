"""The sweeper never gets stuck: bots' clocks give no deadline, and a game whose sweep
fails is logged and pushed back by a backoff, so it never blocks the real timeouts
behind it; a row with no game is dropped without keeping a later game of its id out."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

import pytest
from kits.clock import T0, FakeNow

from parlor.core.errors import FailedPrecondition
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.deadlines import MemoryDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules import takefour as tf
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import Codec
from parlor.services.takefour.game import GAME as TF

CAT = "connect4x4"


class Flaky(GameHost[Any, Any, Any]):
    """A host on which the games in ``broken`` fail to load, with ``error``."""

    broken: set[str]
    error: Exception

    async def load(self, game_id: str, version: int | None = None) -> Any:
        if game_id in self.broken:
            raise self.error
        return await super().load(game_id, version)


def flaky_host(now: FakeNow, index: MemoryDeadlines, error: Exception) -> Flaky:
    host = Flaky(CAT, C4.decider, Codec(), InMemoryEventStore(), now=now, deadlines=index)
    host.broken, host.error = set(), error
    return host


async def open_c4(host: GameHost[Any, Any, Any], game_id: str, seconds: int = 30) -> None:
    create = c4.CreateGame(c4.Config())
    players = (Seat("ada"), Seat("bob"))
    await host.create(game_id, OpenTable(players, create, TimeControl.per_move(seconds)))


def test_a_take_four_table_with_a_bot_is_due_only_by_its_peoples_clocks() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = GameHost(
            "takefour", TF.decider, TF.codec, InMemoryEventStore(), now=now, deadlines=index
        )
        players = (Seat("ada"), Seat("bot:easy"))
        config = tf.TakeFourConfig()
        create = tf.CreateGame(config, tuple(s.player_id for s in players))
        await host.create("t", OpenTable(players, create, TimeControl.per_move(60)))
        outcome = await host.execute(
            "t", tf.StartRound(tuple(range(config.tiles.size))), actor="takefour"
        )
        # Both seats race; only ada's idle clock gives a deadline.
        assert TF.decider.next_deadline(outcome.state) == T0 + timedelta(seconds=60)
        now.advance(30)
        assert await index.due("takefour", now.at) == []  # not swept for nothing
        assert await Sweeper(host, index).sweep() == 0

    asyncio.run(go())


def test_a_table_of_bots_only_is_never_due() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = GameHost(CAT, C4.decider, Codec(), InMemoryEventStore(), now=now, deadlines=index)
        players = (Seat("bot:random"), Seat("bot:random"))
        create = c4.CreateGame(c4.Config())
        outcome = await host.create("g", OpenTable(players, create, TimeControl.per_move(30)))
        assert C4.decider.next_deadline(outcome.state) is None
        assert await index.due(CAT, now.at + timedelta(days=1)) == []

    asyncio.run(go())


@pytest.mark.parametrize(
    "error", [RuntimeError("a bug"), FailedPrecondition("odd", reason="ODD")], ids=repr
)
def test_a_failing_game_is_pushed_back_and_the_timeouts_behind_it_still_fire(
    error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = flaky_host(now, index, error)
        for n in range(3):  # deadlines T0+30 .. T0+32: the broken ones come first
            await open_c4(host, f"bad{n}", 30 + n)
        await open_c4(host, "good", 40)
        host.broken = {"bad0", "bad1", "bad2"}
        sweeper = Sweeper(host, index, interval=2, batch=2, max_backoff=10)
        now.advance(41)
        with caplog.at_level(logging.WARNING, "parlor.gamehost.sweeper"):
            assert await sweeper.sweep() == 0  # bad0, bad1 fail: pushed back 2 s
            assert {r.game_id for r in caplog.records} == {"bad0", "bad1"}  # type: ignore[attr-defined]
            assert list(await index.due(CAT, now.at)) == ["bad2", "good"]
            assert await sweeper.sweep() == 1  # bad2 fails, good times out
        table, _ = await host.load("good")
        assert table.game.winner == 1
        assert sweeper.failures == {"bad0": 1, "bad1": 1, "bad2": 1}
        # Each failure doubles the wait, up to max_backoff.
        sweeper.batch = 10
        for expected in (4, 8, 10, 10):
            now.advance(1000)
            await sweeper.sweep()
            assert list(await index.due(CAT, now.at + timedelta(seconds=expected - 1))) == []
            due = await index.due(CAT, now.at + timedelta(seconds=expected))
            assert sorted(due) == ["bad0", "bad1", "bad2"]
        # Mended: the next sweep fires the timeout and forgets the failures.
        host.broken = set()
        now.advance(1000)
        assert await sweeper.sweep() == 3
        assert sweeper.failures == {}

    asyncio.run(go())


def test_the_store_being_down_skips_the_pass_not_the_game() -> None:
    from parlor.core.errors import Unavailable

    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = flaky_host(now, index, Unavailable("down"))
        await open_c4(host, "g")
        host.broken = {"g"}
        now.advance(31)
        with pytest.raises(Unavailable):
            await Sweeper(host, index).sweep()
        assert list(await index.due(CAT, now.at)) == ["g"]  # not pushed back

    asyncio.run(go())


def test_a_row_with_no_game_is_dropped_and_a_later_game_of_that_id_is_swept() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = GameHost(CAT, C4.decider, Codec(), InMemoryEventStore(), now=now, deadlines=index)
        await index.schedule(CAT, "ghost", T0, 7)  # a row whose game is not in this store
        sweeper = Sweeper(host, index)
        assert await sweeper.sweep() == 0
        assert await index.due(CAT, now.at + timedelta(days=1)) == []
        await open_c4(host, "ghost")  # a real game with that id, versions from 1
        now.advance(31)
        assert list(await index.due(CAT, now.at)) == ["ghost"]
        assert await sweeper.sweep() == 1

    asyncio.run(go())


def test_a_failing_row_a_newer_version_moved_on_is_not_pushed_back() -> None:
    async def go() -> None:
        index = MemoryDeadlines()
        await index.schedule(CAT, "g", T0, 3)
        await index.schedule(CAT, "g", T0 + timedelta(seconds=60), 4)  # a move meanwhile
        await index.postpone(CAT, "g", T0, T0 + timedelta(seconds=600))
        assert list(await index.due(CAT, T0 + timedelta(seconds=60))) == ["g"]

    asyncio.run(go())
