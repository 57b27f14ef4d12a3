"""The game components of one process share one NATS connection and one relay."""

from __future__ import annotations

import asyncio

import pytest

from parlor.eventstore import BusHealth
from parlor.gamehost.wiring.backends import game_backends
from parlor.kit.server import BUS_HEALTH
from parlor.runtime.backends import _OUTBOXES

pytestmark = pytest.mark.integration


def hidden(event_type: str, data: bytes) -> tuple[str, bytes] | None:
    return event_type, b""


async def test_games_in_one_process_share_a_bus_and_relay_each_with_its_own_lane(
    migrated: None,
) -> None:
    async with (
        game_backends("connect4x4") as c4,
        game_backends("upwords", hidden) as uw,
        game_backends("upwords", hidden) as again,  # a second replica's component, in-process
    ):
        assert c4.bus is uw.bus is again.bus
        assert c4.relay is uw.relay is again.relay
        assert c4.store is not uw.store  # each game keeps its own store (and group commit)
        # on the process's pools (one connection budget), which the relay's store shares
        assert c4.store.pools is uw.store.pools is c4.outbox.store.pools
        assert sorted(c4.relay.lanes) == ["connect4x4", "upwords"]
        assert c4.relay.lanes["upwords"].redact is not c4.relay.lanes["connect4x4"].redact
        # every component's task runs the one relay; it stops with the last of them
        runs = [asyncio.create_task(b.outbox.run()) for b in (c4, uw)]
        lanes = c4.relay.lanes.values()
        for _ in range(300):  # (a lease a stopped replica of another test held lapses in 6 s)
            if all(lane.held for lane in lanes):
                break
            await asyncio.sleep(0.05)
        assert c4.relay.lanes["connect4x4"].held
        assert c4.relay.lanes["upwords"].held
        runs[0].cancel()
        await asyncio.sleep(0.2)
        assert c4.relay.is_leader  # the other component's task keeps it running
        runs[1].cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        assert not c4.relay.is_leader
    assert not _OUTBOXES  # closed with its last component


async def test_matchmaking_in_a_games_process_relays_through_the_same_relay(
    migrated: None,
) -> None:
    from parlor.accounts import GUEST_CLAIM_CATEGORY
    from parlor.services.matchmaking.component import matchmaking
    from parlor.services.matchmaking.rounds import CATEGORY

    async with game_backends("connect4x4") as c4, matchmaking() as component:
        # MatchFormed's lane too, and the guest claims' (for scoring)
        assert sorted(c4.relay.lanes) == sorted(["connect4x4", CATEGORY, GUEST_CLAIM_CATEGORY])
        relay_task = component.tasks[0]
        assert getattr(relay_task, "__self__", None) is c4.outbox  # no relay of its own
        # ready without NATS (issue 38); the bus it reports under parlor.bus is the process's
        assert not component.ready
        health = getattr(component.checks[BUS_HEALTH], "__self__", None)
        assert isinstance(health, BusHealth)
        assert health.bus is c4.bus
    assert not _OUTBOXES
