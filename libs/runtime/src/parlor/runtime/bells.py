"""The bells of a replica's games: they wake a game's watchers when it may have new events.

The store is the truth; a bell only says "look again". It is rung by
local appends and by the bus (events another replica appended), and watchers
also look again after a timeout, so a lost ring delays an update, never loses it.

A ring may name the version it announces. The bus echoes every local append back
to the process that made it; ``GameBells`` remembers the highest version local
appends have announced per game, so that echo (and any older news) wakes no one,
and each new event costs each watcher one read of the store, not two.

Only local appends (whose versions come from the store) are remembered. A ring from
the bus (``hint``) is a claim anyone who can publish could make: it may wake
watchers, who then read the store, but its version is never remembered, so a forged
message with a huge version cannot silence the real rings after it.

A local append's ring also leaves its events (``ring(..., records)``): the game's newest
events appended here, consecutive, a short tail per game. A watcher woken by such a ring
takes what it has not seen from that tail instead of reading the store (``tail_after``),
unless the bus has hinted at news of the game since that watcher last read the store
(``hinted``: another replica's append, which only the store holds), its wait ran out, or
the tail does not follow on from what it has seen: then it reads the store, as before.

``ring_from_bus`` rings them for every event the bus carries for the game type: other
replicas append to the same games, and the relay publishes every committed event.
(The event store's ``Doorbell`` is another thing: PostgreSQL's LISTEN, waking relays.)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from parlor.eventstore import Subjects
from parlor.eventstore.bus import VERSION

TAIL = 32
"""Events kept per game in its tail (more than any one command appends, with its bots')."""


class GameBells:
    def __init__(self, remember: int = 16_384) -> None:
        self._bells: dict[str, asyncio.Event] = {}
        self._announced: OrderedDict[str, int] = OrderedDict()
        self._remember = remember
        self._tails: OrderedDict[str, list[Any]] = OrderedDict()
        self._hinted: OrderedDict[str, int] = OrderedDict()
        self._hints = 0

    def bell(self, game_id: str) -> asyncio.Event:
        """Take this before reading the store; it is set by any ring after that."""
        bell = self._bells.get(game_id)
        if bell is None:
            bell = self._bells[game_id] = asyncio.Event()
        return bell

    def ring(self, game_id: str, version: int | None = None, records: Sequence[Any] = ()) -> None:
        """A local append: wake the game's watchers; a ``version`` already announced wakes no one.

        ``version`` must be one the store returned for this process's own append, and
        ``records`` (``Recorded``, each with its ``version``) the events it appended as the
        store returned them; a ring without them leaves the game no tail.
        """
        if version is not None:
            if version <= self._announced.get(game_id, 0):
                return
            self._newest(self._announced, game_id, version)
        self._keep(game_id, records)
        self._wake(game_id)

    def _keep(self, game_id: str, records: Sequence[Any]) -> None:
        tail = self._tails.pop(game_id, None)
        if not records:
            return
        if tail and tail[-1].version + 1 == records[0].version:
            tail = [*tail, *records][-TAIL:]
        else:
            tail = list(records)[-TAIL:]
        self._newest(self._tails, game_id, tail)

    def tail_after(self, game_id: str, version: int) -> list[Any] | None:
        """The events after ``version`` from the game's tail of local appends, if the tail
        follows on from ``version`` and holds something newer; None: read the store."""
        tail = self._tails.get(game_id)
        if not tail or not tail[0].version <= version + 1 <= tail[-1].version:
            return None
        return [r for r in tail if r.version > version]

    def hinted(self, game_id: str) -> int:
        """A mark of the bus's last hint of news of the game (0: none remembered): a watcher
        that read the store at one mark reads it again once the mark has moved."""
        return self._hinted.get(game_id, 0)

    def hint(self, game_id: str, version: int | None = None) -> None:
        """A ring from the bus: wake the watchers unless a local append already announced it.

        The version is believed only to skip the echo of a local append; it is not remembered.
        """
        if version is not None and version <= self._announced.get(game_id, 0):
            return
        self._hints += 1
        self._newest(self._hinted, game_id, self._hints)
        self._wake(game_id)

    def _newest(self, games: OrderedDict[str, Any], game_id: str, value: Any) -> None:
        """``games[game_id] = value`` as its newest entry; the oldest beyond ``remember`` go."""
        games[game_id] = value
        games.move_to_end(game_id)
        while len(games) > self._remember:
            games.popitem(last=False)

    def _wake(self, game_id: str) -> None:
        bell = self._bells.pop(game_id, None)
        if bell is not None:
            bell.set()

    @staticmethod
    async def wait(bell: asyncio.Event, seconds: float) -> None:
        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
        # lands as the bell rings, and a watch would then outlive its server.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await bell.wait()


async def ring_from_bus(
    bus: Any, subjects: Subjects, category: str, bells: GameBells
) -> Callable[[], Awaitable[None]]:
    """Subscribe (plain NATS, no ack needed: the store is the truth); returns the unsubscriber."""
    prefix_tokens = subjects.prefix.count(".") + 1

    async def on_message(msg: Any) -> None:
        tokens = msg.subject.split(".")
        if len(tokens) > prefix_tokens + 1:
            version = (msg.headers or {}).get(VERSION, "")
            known = isinstance(version, str) and version.isascii() and version.isdigit()
            # a hint, not a fact: anyone who can publish could have sent it
            bells.hint(tokens[prefix_tokens + 1], int(version[:20]) if known else None)

    nc = getattr(bus, "nc", None)
    if nc is None:  # the in-memory bus: local appends ring the bell themselves

        async def nothing() -> None:
            return None

        return nothing
    ready: asyncio.Event | None = getattr(bus, "ready", None)
    if ready is None or ready.is_set():
        sub = await nc.subscribe(subjects.category(category), cb=on_message)
        return sub.unsubscribe  # type: ignore[no-any-return]

    async def when_ready() -> Any:
        # NATS was not there at start-up: subscribe once the bus has connected.
        assert ready is not None
        await ready.wait()
        return await bus.nc.subscribe(subjects.category(category), cb=on_message)

    waiting = asyncio.create_task(when_ready())

    async def unsubscribe() -> None:
        if not waiting.done():
            waiting.cancel()
            with contextlib.suppress(BaseException):
                await waiting
            return
        if not waiting.cancelled() and waiting.exception() is None:
            await waiting.result().unsubscribe()

    return unsubscribe
