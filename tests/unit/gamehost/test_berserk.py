"""Berserk (issue 43): a seat an arena's game allows halves its own clock before its first
move and earns no increment; recorded as ``SeatBerserked`` in the game's stream, so a
reload, ``parlor verify`` and the tournament see the same. Injected clock, no sleeps."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from kits.clock import T0, FakeNow

from parlor.core.errors import FailedPrecondition, InvalidArgument
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.table.clocks import Berserk, deadline
from parlor.gamehost.table.seating import OpenTable, SeatBerserked, Table
from parlor.gamehost.verify.timecheck import stamps_of
from parlor.gamehost.verify.verify import verify_history
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import Codec

SEATS = (Seat("ada"), Seat("bob"))
FISCHER = TimeControl.fischer(60, 2)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def opened(
    control: TimeControl = FISCHER,
    allowed: bool = True,
    store: InMemoryEventStore | None = None,
) -> tuple[GameHost[Table[c4.State], Any, Any], FakeNow]:
    now = FakeNow()
    host: GameHost[Table[c4.State], Any, Any] = GameHost(
        "connect4x4", C4.decider, Codec(), store or InMemoryEventStore(), now=now
    )
    create = c4.CreateGame(c4.Config(players=2))
    await host.create("g", OpenTable(SEATS, create, control, True, allowed))
    return host, now


def drop(seat: int) -> c4.DropChecker:
    return c4.DropChecker(seat, 3, c4.Side.FRONT)


async def refusal(host: Any, command: Any) -> FailedPrecondition:
    with pytest.raises(FailedPrecondition) as refused:
        await host.execute("g", command, actor=SEATS[command.seat].player_id)
    return refused.value


def test_berserk_halves_the_seats_clock_and_it_earns_no_increment() -> None:
    async def go() -> None:
        store = InMemoryEventStore()
        host, now = await opened(store=store)
        now.advance(1)
        await host.execute("g", Berserk(1), actor="bob")  # before ada's first move too
        table, _ = await host.load("g")
        assert table.clock is not None
        assert [s.bank for s in table.clock.seats] == [60, 30]
        assert [s.berserk for s in table.clock.seats] == [False, True]
        now.advance(4)
        await host.execute("g", drop(0), actor="ada")
        now.advance(10)
        outcome = await host.execute("g", drop(1), actor="bob")
        clock = outcome.state.clock
        assert clock.seats[0].bank == 60 - 5 + 2  # ada's increment
        assert clock.seats[1].bank == 30 - 10  # none for bob
        assert deadline(clock, 0) == T0 + timedelta(seconds=15 + 57)
        # Stored as SeatBerserked (no seat's action: no clock_seat) and read back the same.
        recorded = await host.history("g")
        berserk = [r for r in recorded if isinstance(r.event, SeatBerserked)]
        assert [r.event for r in berserk] == [SeatBerserked(1)]
        assert "clock_seat" not in berserk[0].record.metadata.extra
        again: GameHost[Table[c4.State], Any, Any] = GameHost(
            "connect4x4", C4.decider, Codec(), store, now=now
        )
        reloaded, _ = await again.load("g")
        assert reloaded.clock == clock

    run(go())


def test_berserk_is_refused_after_the_first_move_twice_or_where_not_allowed() -> None:
    async def go() -> None:
        host, _ = await opened()
        await host.execute("g", drop(0), actor="ada")
        assert (await refusal(host, Berserk(0))).reason == "BERSERK_TOO_LATE"
        await host.execute("g", Berserk(1), actor="bob")
        assert (await refusal(host, Berserk(1))).reason == "ALREADY_BERSERK"

        host, _ = await opened(allowed=False)  # a game no arena allowed it in
        assert (await refusal(host, Berserk(0))).reason == "BERSERK_NOT_ALLOWED"

        with pytest.raises(InvalidArgument) as untimed:  # nothing to halve
            await opened(TimeControl.none())
        assert untimed.value.reason == "INVALID_TIME_CONTROL"

    run(go())


def test_per_move_berserk_halves_every_moves_allowance() -> None:
    async def go() -> None:
        host, now = await opened(TimeControl.per_move(30))
        outcome = await host.execute("g", Berserk(0), actor="ada")  # ada's clock runs
        assert deadline(outcome.state.clock, 0) == T0 + timedelta(seconds=15)
        now.advance(5)
        outcome = await host.execute("g", drop(0), actor="ada")
        now.advance(5)
        outcome = await host.execute("g", drop(1), actor="bob")
        assert deadline(outcome.state.clock, 0) == T0 + timedelta(seconds=10 + 15)

    run(go())


def test_verify_re_decides_the_berserk_from_its_event() -> None:
    async def go() -> None:
        host, now = await opened()
        await host.execute("g", drop(0), actor="ada")
        now.advance(2)
        await host.execute("g", Berserk(1), actor="bob")
        now.advance(3)
        await host.execute("g", drop(1), actor="bob")
        recorded = await host.history("g")
        events = [r.event for r in recorded]
        stamps = stamps_of(r.record.metadata.extra for r in recorded)
        actors = [r.record.metadata.actor for r in recorded]

        def verdict(events: list[Any]) -> Any:
            return verify_history(
                C4.decider,
                C4.command_of,
                events,
                create_of=C4.create_of,
                stamps=stamps,
                actors=actors,
            )

        assert verdict(events).ok, verdict(events).divergence
        # The same berserk recorded as ada's, after her first move: the rules refuse it.
        at = events.index(SeatBerserked(1))
        forged = verdict([*events[:at], SeatBerserked(0), *events[at + 1 :]]).divergence
        assert forged is not None
        assert forged.reason == "COMMAND_REFUSED"
        assert "BERSERK_TOO_LATE" in forged.detail or "first move" in forged.detail

    run(go())


@pytest.mark.parametrize("game", ["connect4x4", "upwords", "takefour"])
def test_every_game_stores_seat_berserked_and_carries_it_on_the_bus_as_it_is(game: str) -> None:
    from importlib import import_module

    module = import_module(f"parlor.services.{game}.game")
    event_type, data = module.Codec().encode(SeatBerserked(2))
    assert event_type == "parlor.common.v1.SeatBerserked"
    assert module.Codec().decode(event_type, data) == SeatBerserked(2)
    public = getattr(module, "public", None)
    if public is not None:  # a game that hides something: nothing hidden here
        assert public(event_type, data) == (event_type, data)
