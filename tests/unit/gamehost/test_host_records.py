"""A command's outcome holds its events as stored: a reply needs no read-back of them."""

from __future__ import annotations

import asyncio

from kits.stores import CountingStore

from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import Codec, rules

Host = GameHost[Table[c4.State], object, object]


def test_outcome_records_are_what_the_store_holds_and_recorded_reads_nothing() -> None:
    async def run() -> None:
        store = CountingStore()
        host: Host = GameHost("connect4x4", rules(), Codec(), store)
        created = await host.create(
            "g", OpenTable((Seat("ada"), Seat("bob")), c4.CreateGame(c4.Config()))
        )
        moved = await host.execute(
            "g", c4.DropChecker(0, 3, c4.Side.FRONT), command_id="m1", actor="ada"
        )
        stored = await host.history("g")
        assert [r.record for r in created.records + moved.records] == [r.record for r in stored]
        assert [r.event for r in moved.records] == [r.event for r in stored[-1:]]
        reads = store.reads
        first = moved.version - len(moved.events) + 1
        assert await host.recorded("g", first, moved.version, moved) == list(moved.records)
        assert store.reads == reads  # nothing read back
        # a retried id answers from the store, and its records say where its events are
        again = await host.execute(
            "g", c4.DropChecker(0, 3, c4.Side.FRONT), command_id="m1", actor="ada"
        )
        assert again.duplicate
        assert [r.record for r in again.records] == [r.record for r in moved.records]
        # records that do not cover the range: read from the store
        assert await host.recorded("g", 1, moved.version, moved) == stored

    asyncio.run(run())
