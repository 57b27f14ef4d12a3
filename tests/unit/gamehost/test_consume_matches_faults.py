"""The MatchFormed consumer outlives a bus that fails under it (NATS restarting): a fetch
or an ack that raises is retried, never the end of the task (whose end stops the process)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import nats.js.errors

from parlor.common.v1 import common_pb2
from parlor.eventstore import InMemoryBus, InMemoryEventStore, NewEvent
from parlor.eventstore.memory import InMemoryDelivery, InMemorySubscription
from parlor.gamehost.pipeline.matches import consume_matches, match_subject
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import MATCH_FORMED, match_stream

MATCH = events_pb2.MatchFormed(
    match_id="m1",
    game_type="connect4x4",
    seats=[common_pb2.Seat(index=0, player_id="ada"), common_pb2.Seat(index=1, player_id="bob")],
)


class Failing(InMemorySubscription):
    """The first fetch meets an error status (NATS restarting); the first ack a closed
    connection."""

    fetch_failed = ack_failed = False

    async def fetch(self, batch: int = 100, max_wait: float = 1.0) -> Sequence[InMemoryDelivery]:
        if not Failing.fetch_failed:
            Failing.fetch_failed = True
            raise nats.js.errors.ServiceUnavailableError
        found = await super().fetch(batch, max_wait)
        for delivery in found:
            if not Failing.ack_failed:
                Failing.ack_failed = True

                async def lost() -> None:
                    raise nats.errors.ConnectionClosedError

                delivery.ack = lost  # type: ignore[method-assign]
        return found


class FailingBus(InMemoryBus):
    async def subscribe(self, durable: str, filter_subject: str, **options: Any) -> Failing:
        await super().subscribe(durable, filter_subject, **options)
        return Failing(self, durable)


def test_a_failed_fetch_and_a_lost_ack_do_not_end_the_consumer() -> None:
    async def go() -> None:
        store, bus = InMemoryEventStore(), FailingBus()
        await store.append(
            match_stream("m1"), [NewEvent(MATCH_FORMED, MATCH.SerializeToString())], 0
        )
        created: list[str] = []

        async def create(match: events_pb2.MatchFormed) -> None:
            created.append(match.match_id)

        task = asyncio.create_task(consume_matches(bus, store, "connect4x4", create))
        await asyncio.sleep(0.05)
        await bus.publish(match_subject(), MATCH.SerializeToString(), message_id="m1")
        for _ in range(300):
            if created or task.done():
                break
            await asyncio.sleep(0.01)
        assert not task.done(), task.exception() if task.done() else None
        assert created == ["m1"]
        await asyncio.sleep(0.1)  # the lost ack: the consumer goes on
        assert not task.done()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())


def test_matches_formed_after_the_bus_lost_everything_are_created() -> None:
    """Issue 38: NATS came back without its store (``wipe``) and the consumer was never made
    again: matches formed after it created no game. It is made again, once per match."""

    async def go() -> None:
        store, bus = InMemoryEventStore(), InMemoryBus()
        created: list[str] = []

        async def create(match: events_pb2.MatchFormed) -> None:
            created.append(match.match_id)

        async def formed(match_id: str) -> None:
            match = events_pb2.MatchFormed()
            match.CopyFrom(MATCH)
            match.match_id = match_id
            data = match.SerializeToString()
            await store.append(match_stream(match_id), [NewEvent(MATCH_FORMED, data)], 0)
            await bus.publish(match_subject(), data, message_id=match_id)

        async def until_created(want: list[str]) -> None:
            for _ in range(500):
                if created == want:
                    return
                await asyncio.sleep(0.01)
            raise AssertionError(f"created {created}, not {want}")

        task = asyncio.create_task(consume_matches(bus, store, "connect4x4", create))
        await formed("m1")
        await until_created(["m1"])
        for i in range(2, 5):
            bus.wipe()
            await bus.ensure_streams()  # as the relay does, finding the stream gone
            await formed(f"m{i}")
            await until_created([f"m{n}" for n in range(1, i + 1)])
        assert not task.done()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())
