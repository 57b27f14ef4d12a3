"""The limit on aborts over the event store: one class, run on the in-memory store and on
PostgreSQL (this folder's ``store`` fixture). Each abort is counted in the player's own
stream at the version the count was read at, so concurrent aborts cannot pass the limit
together; a refused abort is withdrawn; a retried one is counted once."""

from __future__ import annotations

import asyncio

import pytest

from parlor.core.errors import FailedPrecondition, ResourceExhausted
from parlor.eventstore import EventStore
from parlor.gamehost.wire.aborts import COUNTED, DAY, WITHDRAWN, AbortLedger, aborts_stream


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def abort(ledger: AbortLedger, player: str, game: str) -> None:
    async with ledger.counting(player, "connect4x4", game):
        pass


class TestAbortLimits:
    async def test_concurrent_aborts_cannot_pass_the_limit_together(
        self, store: EventStore, unique: str
    ) -> None:
        ledger = AbortLedger(store, per_day=2)
        ann = f"guest-a{unique}"
        results = await asyncio.gather(
            *(abort(ledger, ann, f"g{n}") for n in range(6)), return_exceptions=True
        )
        assert sum(1 for r in results if r is None) == 2
        refused = [r for r in results if r is not None]
        assert all(isinstance(r, ResourceExhausted) for r in refused)
        assert {r.reason for r in refused if isinstance(r, ResourceExhausted)} == {
            "TOO_MANY_ABORTS"
        }
        recorded = await store.read_stream(aborts_stream(ann))
        assert [r.type for r in recorded] == [COUNTED, COUNTED]

    async def test_a_refused_abort_is_withdrawn_and_a_retry_counted_once(
        self, store: EventStore, unique: str
    ) -> None:
        clock = Clock()
        ledger = AbortLedger(store, per_day=2, clock=clock)
        bob = f"guest-b{unique}"
        with pytest.raises(FailedPrecondition):
            async with ledger.counting(bob, "connect4x4", "g1"):
                raise FailedPrecondition("started", reason="ABORT_TOO_LATE")
        await abort(ledger, bob, "g2")
        await abort(ledger, bob, "g2")  # a retry of the same game's abort
        await abort(ledger, bob, "g3")
        recorded = await store.read_stream(aborts_stream(bob))
        assert [r.type for r in recorded] == [COUNTED, WITHDRAWN, COUNTED, COUNTED]
        with pytest.raises(ResourceExhausted) as limited:
            await abort(ledger, bob, "g4")
        assert limited.value.metadata == {"per_day": "2"}
        clock.now += DAY + 1  # a day later the earlier aborts no longer count
        await abort(ledger, bob, "g4")
