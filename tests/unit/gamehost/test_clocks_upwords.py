"""Upwords on the clock, in the game host with an injected clock (docs/rules/upwords.md,
"Time"): the seat to move's bank is charged and credited, a challenge in another seat's
turn charges nobody, a seat that runs out drops out and the game goes on, and a game
whose challenged player had resigned still times out (the sweeper is not stuck on it)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from kits.clock import T0, FakeNow

from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.deadlines import MemoryDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.table.seating import GameFinished, OpenTable
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import upwords as uw
from parlor.rules.upwords import tiles
from parlor.rules.upwords.moves import Placement
from parlor.services.upwords.game import GAME as UW

NAMES = ("ada", "bob", "cy")
CHALLENGE = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE)
AA = (Placement(4, 4, "A"), Placement(4, 5, "A"))  # the sorted bag deals seat 0 seven As


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def opened(control: TimeControl, n: int = 3) -> tuple[GameHost[Any, Any, Any], FakeNow]:
    now = FakeNow()
    host: GameHost[Any, Any, Any] = GameHost(
        "upwords", UW.decider, UW.codec, InMemoryEventStore(), now=now, deadlines=MemoryDeadlines()
    )
    seats = tuple(Seat(name) for name in NAMES[:n])
    bag = tiles.full_bag()
    create = uw.CreateGame(CHALLENGE, NAMES[:n], bag, bag)
    await host.create("u", OpenTable(seats, create, control))
    table, _ = await host.load("u")
    assert table.game.to_move == 0
    return host, now


def test_fischer_charges_the_seat_to_move_and_a_challenge_charges_no_one() -> None:
    async def go() -> None:
        host, now = await opened(TimeControl.fischer(60, 5))
        now.advance(10)
        await host.execute("u", uw.Play(0, AA, {}), actor="ada")
        now.advance(7)  # bob's clock runs; cy challenges in bob's turn
        await host.execute("u", uw.Challenge(2, {"aa": False}), actor="cy")
        table, _ = await host.load("u")
        clock = table.clock
        assert [round(s.bank, 3) for s in clock.seats] == [55.0, 53.0, 60.0]
        assert [s.since for s in clock.seats] == [T0 + timedelta(seconds=17), None, None]
        assert UW.decider.deadlines(table) == {0: T0 + timedelta(seconds=72)}

    run(go())


def test_a_seat_out_of_time_drops_out_and_the_next_seats_clock_starts() -> None:
    async def go() -> None:
        host, now = await opened(TimeControl.per_move(30))
        now.advance(31)
        assert await Sweeper(host, host.deadlines).sweep() == 1
        table, _ = await host.load("u")
        assert table.game.out == (True, False, False)
        assert table.game.to_move == 1
        assert UW.decider.deadlines(table) == {1: T0 + timedelta(seconds=61)}
        shown = UW.decider.clocks(table)
        assert [s.timed_out for s in shown.seats] == [True, False, False]
        assert [s.running for s in shown.seats] == [False, True, False]

    run(go())


def test_a_withdrawn_play_of_a_seat_that_resigned_since_leaves_the_game_on_the_clock() -> None:
    """The game waited on the resigned seat: its timeout was refused (SEAT_RESIGNED), so
    every sweep failed and every command of the others was refused with it."""

    async def go() -> None:
        host, now = await opened(TimeControl.per_move(30))
        now.advance(5)
        await host.execute("u", uw.Play(0, AA, {}), actor="ada")
        now.advance(5)
        await host.execute("u", uw.Resign(0), actor="ada")
        now.advance(5)
        await host.execute("u", uw.Challenge(2, {"aa": False}), actor="cy")
        table, _ = await host.load("u")
        assert UW.decider.deadlines(table) == {1: T0 + timedelta(seconds=35)}
        now.advance(30)
        sweeper = Sweeper(host, host.deadlines)
        assert await sweeper.sweep() == 1
        assert not sweeper.failures
        events = [r.event for r in await host.history("u")]
        assert isinstance(events[-1], GameFinished)
        assert uw.PlayerTimedOut(1) in events
        assert [s.rank for s in events[-1].standings][2] == 1  # cy, the last one playing

    run(go())


def test_a_seat_that_resigned_is_not_marked_out_of_time() -> None:
    """Rules 3: ``GameFinished`` and the clocks mark ``timed_out`` only the seat that ran
    out of time; a resigner of a timed game was marked so too (rules 2, replayed so)."""

    async def go() -> None:
        host, now = await opened(TimeControl.per_move(30))
        now.advance(5)
        await host.execute("u", uw.Resign(0), actor="ada")
        table, _ = await host.load("u")
        shown = UW.decider.clocks(table)
        assert [s.timed_out for s in shown.seats] == [False, False, False]
        now.advance(31)  # bob runs out: cy, the last one playing, wins
        assert await Sweeper(host, host.deadlines).sweep() == 1
        events = [r.event for r in await host.history("u")]
        finished = events[-1]
        assert isinstance(finished, GameFinished)
        assert [s.timed_out for s in finished.standings] == [False, True, False]
        assert [s.rank for s in finished.standings] == [2, 2, 1]  # both left, level on 0

    run(go())
