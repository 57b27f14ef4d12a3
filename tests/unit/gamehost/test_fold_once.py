"""A decided command folds each of its events once: the fold that finds the game's end
(``Seated``) yields the states the host keeps, and the state before each event it records.

A counting engine under ``Seated`` counts every ``evolve`` of the engine the host and the
seats make (the engine's own ``decide`` folds inside it, not through the wrapper). Every
state so kept is the one a fresh replica folds from the store.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from parlor.core.decider import Decider
from parlor.core.errors import FailedPrecondition
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost, Outcome
from parlor.gamehost.pipeline.pipeline import Pipeline
from parlor.gamehost.table.seating import GameFinished, OpenTable, Seated, SeatsTaken, Table
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import Codec

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
C4Host = GameHost[Table[c4.State], Any, Any]


class Counting:
    """The Connect 4x4 engine, counting its folds."""

    def __init__(self) -> None:
        self.inner: Decider[c4.State, Any, Any] = C4.engine.decider
        self.evolves = 0

    def initial_state(self) -> c4.State:
        return self.inner.initial_state()

    def decide(self, state: c4.State, command: Any) -> Any:
        return self.inner.decide(state, command)

    def evolve(self, state: c4.State, event: Any) -> c4.State:
        self.evolves += 1
        return self.inner.evolve(state, event)

    def is_terminal(self, state: c4.State) -> bool:
        return self.inner.is_terminal(state)


class Now:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


def engine_events(outcome: Outcome[Any, Any]) -> int:
    """The outcome's events the engine folds (the seats' own, ``SeatsTaken`` and
    ``GameFinished``, are folded by ``Seated`` without it)."""
    return sum(not isinstance(e, SeatsTaken | GameFinished) for e in outcome.events)


def setup() -> tuple[Counting, C4Host, InMemoryEventStore, Now]:
    engine = Counting()
    seated = Seated(engine, C4.min_seats, C4.max_seats, C4.standings, C4.timing)
    store, now = InMemoryEventStore(), Now()
    return engine, GameHost("connect4x4", seated, Codec(), store, now=now), store, now


async def counted(engine: Counting, run: Any) -> tuple[Outcome[Any, Any], int]:
    engine.evolves = 0
    outcome = await run
    return outcome, engine.evolves


async def check_states(store: InMemoryEventStore, outcome: Outcome[Any, Any]) -> None:
    """The state after, and the state before each recorded event, are what another replica
    folds from the store."""
    fresh: C4Host = GameHost("connect4x4", C4.decider, Codec(), store)
    assert (await fresh.load("g"))[0] == outcome.state
    for r in outcome.records:
        if r.version > 1:
            assert (await fresh.load("g", r.version - 1))[0] == r.before
        else:
            assert r.before == fresh.decider.initial_state()


@pytest.mark.parametrize("control", [TimeControl.none(), TimeControl.fischer(60, 2)])
def test_every_decided_event_is_folded_once_and_the_host_keeps_those_states(
    control: TimeControl,
) -> None:
    async def go() -> None:
        engine, host, store, now = setup()
        seats = (Seat("ada"), Seat("bob"))
        created, folds = await counted(
            engine, host.create("g", OpenTable(seats, c4.CreateGame(c4.Config()), control))
        )
        assert engine_events(created) >= 1
        assert folds == engine_events(created)
        await check_states(store, created)
        table = created.state
        for turn in range(200):  # each seat its first legal move, to the end (GameFinished)
            if C4.decider.is_terminal(table):
                break
            now.at += timedelta(seconds=1)
            (seat,) = C4.engine.to_move(table.game)
            move = C4.engine.legal_moves(table.game, seat)[0]
            moved, folds = await counted(
                engine, host.execute("g", move, actor=seats[seat].player_id)
            )
            assert folds == engine_events(moved), (turn, moved.events)
            await check_states(store, moved)
            table = moved.state
        assert isinstance(moved.events[-1], GameFinished)

    asyncio.run(go())


def test_timeouts_fired_by_a_command_are_folded_once_with_it_and_when_they_preempt_it() -> None:
    async def go() -> None:
        engine, host, store, now = setup()
        seats = (Seat("ada"), Seat("bob"), Seat("cy"))
        control = TimeControl.fischer(60, 2)
        await host.create("g", OpenTable(seats, c4.CreateGame(c4.Config(players=3)), control))
        now.at += timedelta(seconds=61)  # ada runs out; bob moves in the same write
        moved, folds = await counted(
            engine, host.execute("g", c4.DropChecker(1, 3, c4.Side.FRONT), actor="bob")
        )
        assert isinstance(moved.events[0], c4.PlayerTimedOut)
        assert folds == engine_events(moved)
        await check_states(store, moved)
        now.at += timedelta(seconds=120)  # cy runs out before moving: the timeout ends it
        engine.evolves = 0
        with pytest.raises(FailedPrecondition) as refused:
            late = c4.DropChecker(2, 3, c4.Side.FRONT)  # its timeouts: the pipeline's to make
            await Pipeline.bare(host).execute("g", late, actor="cy")
        assert refused.value.reason == "TIMED_OUT"
        appended = [r.event for r in await host.history("g", moved.version + 1)]
        assert isinstance(appended[-1], GameFinished)
        assert engine.evolves == sum(not isinstance(e, GameFinished) for e in appended)
        state, version = await host._current("g", fresh=False)  # the cache the timeout left
        assert version == moved.version + len(appended)
        fresh: C4Host = GameHost("connect4x4", C4.decider, Codec(), store)
        assert (await fresh.load("g"))[0] == state

    asyncio.run(go())


def test_events_read_back_for_a_reply_carry_the_state_before_each_too() -> None:
    async def go() -> None:
        _, host, store, _ = setup()
        seats = (Seat("ada"), Seat("bob"))
        await host.create("g", OpenTable(seats, c4.CreateGame(c4.Config())))
        for seat in (0, 1, 0):
            moved = await host.execute("g", c4.DropChecker(seat, seat, c4.Side.FRONT))
        # no outcome holds versions 2 on: they are read from the store and folded
        read = await host.recorded("g", 2, moved.version)
        assert [r.version for r in read] == list(range(2, moved.version + 1))
        fresh: C4Host = GameHost("connect4x4", C4.decider, Codec(), store)
        for r in read:
            assert r.before == (await fresh.load("g", r.version - 1))[0]

    asyncio.run(go())
