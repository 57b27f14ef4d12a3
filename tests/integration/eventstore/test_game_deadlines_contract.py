"""One contract, two deadline indexes (memory and PostgreSQL), and sweepers racing on both.

The index is what every replica's sweeper reads; the expected stream version is what
keeps two replicas from appending two timeouts, on the real store as in memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from parlor.eventstore import EventStore, InMemoryEventStore, PostgresEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.deadlines import DeadlineIndex, MemoryDeadlines, PostgresDeadlines
from parlor.gamehost.seating import OpenTable, Seat
from parlor.gamehost.sweeper import Sweeper
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.codec import Codec
from parlor.services.connect4x4.game import GAME

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


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
