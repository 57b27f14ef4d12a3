"""Command ids are idempotency keys scoped to the actor who sent them."""

from __future__ import annotations

import asyncio

import pytest

from parlor.core.errors import AlreadyExists, PermissionDenied
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import Codec, rules


async def _game() -> GameHost[Table[c4.State], object, object]:
    host: GameHost[Table[c4.State], object, object] = GameHost(
        "connect4x4", rules(), Codec(), InMemoryEventStore()
    )
    await host.create(
        "g", OpenTable((Seat("ada"), Seat("bob")), c4.CreateGame(c4.Config())), actor="ada"
    )
    return host


def test_a_retry_by_the_same_actor_gets_the_first_outcome() -> None:
    async def run() -> None:
        host = await _game()
        first = await host.execute(
            "g", c4.DropChecker(0, 3, c4.Side.FRONT), command_id="m1", actor="ada"
        )
        again = await host.execute(
            "g", c4.DropChecker(0, 3, c4.Side.FRONT), command_id="m1", actor="ada"
        )
        assert again.duplicate
        assert again.version == first.version
        assert again.events == first.events

    asyncio.run(run())


def test_another_actor_reusing_an_id_is_refused_and_learns_nothing() -> None:
    async def run() -> None:
        host = await _game()
        await host.execute("g", c4.DropChecker(0, 3, c4.Side.FRONT), command_id="m1", actor="ada")
        _, version = await host.load("g")
        # bob's own, legal move under ada's id: the id is taken
        with pytest.raises(AlreadyExists) as taken:
            await host.execute(
                "g", c4.DropChecker(1, 2, c4.Side.FRONT), command_id="m1", actor="bob"
            )
        assert taken.value.reason == "COMMAND_ID_TAKEN"
        # a command the rules refuse keeps its own refusal, not the first outcome
        with pytest.raises(PermissionDenied):
            await host.execute(
                "g", c4.DropChecker(0, 2, c4.Side.FRONT), command_id="m1", actor="bob"
            )
        assert (await host.load("g"))[1] == version  # nothing appended

    asyncio.run(run())
