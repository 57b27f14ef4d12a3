"""The game host's cache of latest states never hides a newer one from a decision."""

from __future__ import annotations

import asyncio

import pytest

from parlor.core.errors import ParlorError
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.record.command import Command
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import Codec, rules

Host = GameHost[Table[c4.State], object, object]


async def _game() -> Host:
    host: Host = GameHost("connect4x4", rules(), Codec(), InMemoryEventStore())
    await host.create("g", OpenTable((Seat("ada"), Seat("bob")), c4.CreateGame(c4.Config())))
    return host


def test_a_late_read_does_not_put_an_older_state_back() -> None:
    async def run() -> None:
        host = await _game()
        old = host._cache["g"]
        moved = await host.execute("g", c4.DropChecker(0, 3, c4.Side.FRONT), actor="ada")
        host._remember("g", *old)  # a slow read that began before the move ends now
        assert host._cache["g"][1] == moved.version

    asyncio.run(run())


def test_a_move_refused_on_a_stale_cached_state_is_decided_again_on_the_store() -> None:
    async def run() -> None:
        host = await _game()
        stale = host._cache["g"]  # ada to move
        await host.execute("g", c4.DropChecker(0, 3, c4.Side.FRONT), actor="ada")
        host._cache["g"] = stale  # however it got there, the cache says ada is still to move
        bob = await host.execute("g", c4.DropChecker(1, 2, c4.Side.FRONT), actor="bob")
        assert bob.events  # bob's move stood: decided on the stored game, where it is his turn

    asyncio.run(run())


def test_a_move_refused_on_a_current_cached_state_is_decided_once() -> None:
    async def run() -> None:
        host = await _game()
        decided: list[c4.Command] = []

        async def counted(table: Table[c4.State]) -> c4.Command:
            command = c4.DropChecker(1, 2, c4.Side.FRONT)  # bob, but ada is to move
            decided.append(command)
            return command

        with pytest.raises(ParlorError) as refused:
            await host.decide("g", Command("bob", lambda table, seat: counted(table), seat=1))
        assert refused.value.reason == "NOT_YOUR_TURN"
        assert len(decided) == 1  # the store had nothing newer: the refusal stood at once

    asyncio.run(run())
