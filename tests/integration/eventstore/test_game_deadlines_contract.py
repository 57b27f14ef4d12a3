"""One contract, two deadline indexes (memory and PostgreSQL), and sweepers racing on both.

The index is what every replica's sweeper reads; the expected stream version is what
keeps two replicas from appending two timeouts, on the real store as in memory. Its mark
is where a recovery goes on from: a game whose notes died with their replica is timed
again however many events came since, whichever replica made its moves.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from parlor.eventstore import (
    NO_STREAM,
    EventStore,
    InMemoryEventStore,
    NewEvent,
    PostgresEventStore,
)
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.deadlines import DeadlineIndex, MemoryDeadlines, PostgresDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import GAME, Codec

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
OLD_WINDOW = 5000
"""The events recovery used to read back (the store's last ones, of any category)."""


class Forgetful(MemoryDeadlines):
    """The index of a replica killed before its notes were flushed: none reached the table."""

    async def schedule(self, *_: Any) -> None:
        return None


def lost_notes(index: DeadlineIndex) -> tuple[DeadlineIndex, Callable[[], None]]:
    """The index of a replica whose notes will die with it, and what kills it: on
    PostgreSQL a real one that flushes only after an hour (its notes dropped at the kill)."""
    if not isinstance(index, PostgresDeadlines):
        return Forgetful(), lambda: None
    doomed = PostgresDeadlines(index.engine, flush_seconds=3600)

    def kill() -> None:
        if doomed._flusher is not None:
            doomed._flusher.cancel()
        doomed._pending.clear()

    return doomed, kill


def category_of(unique: str, name: str) -> str:
    return f"{name}{unique.replace('-', '')}"[:40]


def host_on(
    category: str, store: EventStore, index: DeadlineIndex, at: list[datetime]
) -> GameHost[Any, Any, Any]:
    return GameHost(category, GAME.decider, Codec(), store, now=lambda: at[0], deadlines=index)


async def open_timed(host: GameHost[Any, Any, Any], game_id: str) -> int:
    """A two-seat game, 30 s a move, its first move made; the position of that move."""
    seats = (Seat("ada"), Seat("bob"))
    create = c4.CreateGame(c4.Config(players=2))
    await host.create(game_id, OpenTable(seats, create, TimeControl.per_move(30)))
    await host.execute(game_id, c4.DropChecker(0, 3, c4.Side.FRONT), actor="ada")
    return await host.store.head_position()


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
async def backends(
    request: pytest.FixtureRequest,
) -> AsyncIterator[tuple[EventStore, DeadlineIndex]]:
    if request.param == "memory":
        yield InMemoryEventStore(), MemoryDeadlines()
        return
    pg = PostgresEventStore(request.getfixturevalue("migrated_url"), poll_interval=0.2)
    try:
        yield pg, PostgresDeadlines(pg.engine)
    finally:
        await pg.close()


class TestDeadlineIndex:
    async def test_due_lists_games_at_or_past_their_deadline_earliest_first(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        _, index = backends
        cat = f"cat-{unique}"
        await index.schedule(cat, "late", T0 + timedelta(seconds=5), 1)
        await index.schedule(cat, "early", T0 + timedelta(seconds=1), 1)
        await index.schedule(cat, "later", T0 + timedelta(seconds=60), 1)
        await index.schedule(f"other-{unique}", "x", T0, 1)
        assert list(await index.due(cat, T0 + timedelta(seconds=5))) == ["early", "late"]
        assert list(await index.due(cat, T0 + timedelta(seconds=5), limit=1)) == ["early"]

    async def test_an_older_version_never_overwrites_a_newer_deadline(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        _, index = backends
        cat = f"cat-{unique}"
        await index.schedule(cat, "g", T0 + timedelta(seconds=30), 5)
        await index.schedule(cat, "g", T0, 4)  # a slow writer of an earlier version
        assert list(await index.due(cat, T0 + timedelta(seconds=1))) == []
        await index.schedule(cat, "g", None, 3)  # nor deletes it
        assert list(await index.due(cat, T0 + timedelta(seconds=30))) == ["g"]
        await index.schedule(cat, "g", None, 6)
        assert list(await index.due(cat, T0 + timedelta(days=1))) == []

    async def test_a_finished_game_keeps_a_marker_a_late_older_version_cannot_replace(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        _, index = backends
        cat = f"cat-{unique}"
        await index.schedule(cat, "g", T0 + timedelta(seconds=5), 3)
        await index.schedule(cat, "g", None, 4)  # the game ended at version 4
        assert list(await index.due(cat, T0 + timedelta(days=1))) == []  # (written)
        await index.schedule(cat, "g", T0, 3)  # another replica's notes, flushed late
        assert list(await index.due(cat, T0 + timedelta(days=1))) == []
        await index.schedule(cat, "g", T0 + timedelta(seconds=9), 5)  # a newer one does
        assert list(await index.due(cat, T0 + timedelta(seconds=9))) == ["g"]

    async def test_postpone_moves_a_due_row_and_keeps_its_version(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        _, index = backends
        cat = f"cat-{unique}"
        await index.schedule(cat, "g", T0, 2)
        await index.postpone(cat, "g", T0, T0 + timedelta(seconds=60))
        assert list(await index.due(cat, T0 + timedelta(seconds=59))) == []
        assert list(await index.due(cat, T0 + timedelta(seconds=60))) == ["g"]
        await index.schedule(cat, "g", T0 + timedelta(seconds=5), 2)  # the game's own
        assert list(await index.due(cat, T0 + timedelta(seconds=5))) == ["g"]
        # A row not due when the sweeper read the list (a move moved it on) stays.
        await index.postpone(cat, "g", T0, T0 + timedelta(seconds=600))
        assert list(await index.due(cat, T0 + timedelta(seconds=5))) == ["g"]
        # Nor does it touch a marker, or a row that is not there.
        await index.schedule(cat, "done", None, 9)
        await index.postpone(cat, "done", T0, T0 + timedelta(seconds=1))
        await index.postpone(cat, "none", T0, T0 + timedelta(seconds=1))
        assert list(await index.due(cat, T0 + timedelta(days=1))) == ["g"]

    async def test_postpone_to_none_drops_the_row_leaving_no_marker(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        _, index = backends
        cat = f"cat-{unique}"
        await index.schedule(cat, "ghost", T0, 2**40)  # a row whose game does not exist
        await index.postpone(cat, "ghost", T0, None)
        assert list(await index.due(cat, T0 + timedelta(days=1))) == []
        await index.schedule(cat, "ghost", T0, 1)  # a real game of that id, later
        assert list(await index.due(cat, T0)) == ["ghost"]

    async def test_retry_at_makes_any_game_due_by_then_and_its_next_note_replaces_it(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        _, index = backends
        cat = f"cat-{unique}"
        soon, later = T0 + timedelta(seconds=10), T0 + timedelta(seconds=60)
        await index.schedule(cat, "marker", None, 7)
        await index.schedule(cat, "late", T0 + timedelta(days=1), 3)
        await index.schedule(cat, "early", T0, 2)
        for game_id in ("none", "marker", "late", "early"):
            await index.retry_at(cat, game_id, soon)
        assert list(await index.due(cat, soon - timedelta(seconds=1))) == ["early"]
        assert sorted(await index.due(cat, soon)) == ["early", "late", "marker", "none"]
        # Each keeps its version (0 for a new row): the game's next note replaces it, an
        # older one does not.
        await index.schedule(cat, "none", later, 1)
        await index.schedule(cat, "marker", later, 6)
        await index.schedule(cat, "late", later, 3)
        assert sorted(await index.due(cat, soon)) == ["early", "marker"]
        assert sorted(await index.due(cat, later)) == ["early", "late", "marker", "none"]

    async def test_sweepers_racing_on_one_game_append_one_timeout(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        store, index = backends
        at = [T0]
        category = f"c4clock{unique.replace('-', '')}"[:40]

        def host() -> GameHost[Any, Any, Any]:
            return GameHost(
                category, GAME.decider, Codec(), store, now=lambda: at[0], deadlines=index
            )

        replicas = [host() for _ in range(4)]
        seats = (Seat("ada"), Seat("bob"), Seat("cy"))
        create = c4.CreateGame(c4.Config(players=3))
        await replicas[0].create("g", OpenTable(seats, create, TimeControl.per_move(30)))
        for replica in replicas[1:]:
            await replica.load("g")
        at[0] = T0 + timedelta(seconds=31)
        fired = await asyncio.gather(*(Sweeper(r, index).sweep() for r in replicas))
        assert sum(fired) == 1
        history = await replicas[0].history("g")
        assert sum(isinstance(r.event, c4.PlayerTimedOut) for r in history) == 1
        table, _ = await replicas[3].load("g")
        assert table.game.turn == 1  # the game goes on with seat 1 to move
        assert list(await index.due(category, at[0])) == []
        assert list(await index.due(category, at[0] + timedelta(seconds=30))) == ["g"]


class TestRecovery:
    async def test_the_mark_only_rises_and_is_kept_per_game_type(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        _, index = backends
        cat, other = category_of(unique, "a"), category_of(unique, "b")
        assert await index.covered(cat) == 0
        await index.cover(cat, 50)
        await index.cover(cat, 20)  # a slower replica's pass
        assert await index.covered(cat) == 50
        assert await index.covered(other) == 0
        await index.cover(cat, 70)
        assert await index.covered(cat) == 70

    async def test_a_game_whose_note_was_lost_is_timed_however_many_events_came_since(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        store, index = backends
        cat, busy = category_of(unique, "c4rec"), category_of(unique, "busy")
        at = [T0]
        doomed, kill = lost_notes(index)
        moved = await open_timed(host_on(cat, store, doomed, at), "g")
        for i in range(OLD_WINDOW // 1000 + 1):  # another game type's, then the replica dies
            await store.append(f"{busy}-{i}", [NewEvent("E", b"")] * 1000, NO_STREAM)
        kill()
        assert await store.head_position() - moved > OLD_WINDOW
        sweeper = Sweeper(host_on(cat, store, index, at), index, interval=1)
        at[0] = T0 + timedelta(seconds=31)
        assert await sweeper.sweep() == 0, "no row: the sweep alone never sees the game"
        assert await sweeper.recover() == 1  # "g", and none of the other type's streams
        assert await sweeper.sweep() == 1
        table, _ = await sweeper.host.load("g")
        assert table.game.timed_out == (False, True)
        assert await index.covered(cat) >= moved

    async def test_a_pass_covers_the_moves_of_every_replica_not_only_its_own(
        self, backends: tuple[EventStore, DeadlineIndex], unique: str
    ) -> None:
        store, index = backends
        cat = category_of(unique, "c4two")
        at = [T0]
        a = Sweeper(host_on(cat, store, index, at), index, interval=1)
        await a.recover()
        doomed, kill = lost_notes(index)
        b = host_on(cat, store, doomed, at)
        await open_timed(b, "of-b")  # B's notes are pending ...
        await open_timed(a.host, "of-a")  # ... when A's, of a later move, are written
        await index.due(cat, T0)
        assert await a.catch_up() == 0  # up to the head of A's recovery: before both
        assert await a.catch_up() == 2  # up to the head of the first catch-up: both
        await b.execute("of-b", c4.DropChecker(1, 3, c4.Side.FRONT), actor="bob")
        kill()  # B dies with the note of its last move too
        c = Sweeper(host_on(cat, store, index, at), index, interval=1)
        assert await c.recover() == 1  # only the move after the mark
        at[0] = T0 + timedelta(seconds=31)
        assert sorted(await index.due(cat, at[0])) == ["of-a", "of-b"]
        assert await c.sweep() == 2
        for game_id, late in (("of-a", (False, True)), ("of-b", (True, False))):
            table, _ = await c.host.load(game_id)
            assert table.game.timed_out == late
