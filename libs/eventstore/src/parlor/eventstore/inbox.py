"""The inbox: makes a consumer idempotent, so a redelivered message changes nothing.

The message id (``<stream>:<version>`` for events) is recorded in the table
``inbox`` in the same PostgreSQL transaction as the handler's own writes. A
message seen before is skipped; a crash before commit leaves no trace (and the
bus redelivers); a crash after commit but before ack is redelivered and skipped.
Two replicas racing on one message serialise on the inbox's primary key.

**A message is a claim.** Its id is whatever its publisher wrote (``Nats-Msg-Id``), so a
handler that finds a message is not what it claims (malformed, or naming an event the
store does not hold) raises ``SetAside``: the transaction rolls back, the id is *not*
kept (else a forger who took the id a real event will have would make the consumer skip
that event), and the message is acked, counted (``parlor_events_set_aside_total``) and
never handled again. Only a failure that may pass (the database away, a bug) is retried:
a poison message nak'ed forever would come back every ``retry_delay`` for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from parlor.eventstore.bus import Delivery, Subscription
from parlor.eventstore.postgres import is_retriable, unavailable
from parlor.eventstore.schema import inbox
from parlor.eventstore.tracing import consumed
from parlor.telemetry.metrics import set_aside

log = logging.getLogger(__name__)

Handler = Callable[[AsyncConnection, Delivery], Awaitable[None]]
"""Does the consumer's writes on the given connection, inside the inbox's transaction."""


class SetAside(Exception):
    """Raised by a handler: this message is not what it claims; keep nothing of it, ack it.

    ``reason`` (an upper-case code, bounded: it labels a metric) says why.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Inbox:
    """Records what one named consumer has processed, transactionally with its effects."""

    def __init__(self, engine: AsyncEngine, consumer: str) -> None:
        self.engine = engine
        self.consumer = consumer

    @consumed
    async def handle(self, delivery: Delivery, handler: Handler) -> bool:
        """Apply ``handler`` once per message id, then ack; False if it was a duplicate."""
        try:
            async with self.engine.begin() as conn:
                claimed = await conn.execute(
                    insert(inbox)
                    .values(consumer=self.consumer, message_id=delivery.message_id)
                    .on_conflict_do_nothing()
                    .returning(inbox.c.message_id)
                )
                fresh = claimed.first() is not None
                if fresh:
                    await handler(conn, delivery)
        except SetAside as aside:
            # Rolled back: its id is not kept; acked: it is never handled again.
            log.warning(
                "consumer %s set aside %s: %s",
                self.consumer,
                delivery.message_id[:200],
                str(aside)[:500],
                extra={"reason": aside.reason},
            )
            set_aside(self.consumer, aside.reason)
            await delivery.ack()
            return False
        except Exception as exc:
            if is_retriable(exc):
                unavailable(exc)
            raise
        await delivery.ack()
        return fresh

    async def run(
        self,
        subscription: Subscription,
        handler: Handler,
        *,
        batch: int = 100,
        fetch_wait: float = 1.0,
        retry_delay: float = 1.0,
        stop: asyncio.Event | None = None,
    ) -> None:
        """Consume until ``stop`` is set; failures are retried, never skipped (but a
        message its handler ``SetAside`` is acked and handled no more).

        A failing message is nak'ed (or, if even that fails, left to ``ack_wait``); a
        database outage pauses the loop for ``retry_delay`` seconds. What the bus loses is
        the subscription's to recover: give a ``DurableConsumer`` (it subscribes again,
        making the consumer again where NATS lost it); a bare subscription that fails is
        only fetched from again, and stays lost if the server lost its consumer.
        """
        while stop is None or not stop.is_set():
            try:
                deliveries = await subscription.fetch(batch, max_wait=fetch_wait)
            except Exception as exc:
                log.warning("consumer %s cannot fetch (%s); retrying", self.consumer, exc)
                await asyncio.sleep(retry_delay)
                continue
            for delivery in deliveries:
                try:
                    await self.handle(delivery, handler)
                except Exception:
                    log.exception(
                        "consumer %s failed on %s; will retry", self.consumer, delivery.message_id
                    )
                    with contextlib.suppress(Exception):
                        await delivery.nak(delay=retry_delay)

    async def seen(self, message_id: str) -> bool:
        """Whether this consumer already processed ``message_id``."""
        async with self.engine.connect() as conn:
            found = await conn.execute(
                inbox.select().where(
                    inbox.c.consumer == self.consumer, inbox.c.message_id == message_id
                )
            )
            return found.first() is not None
