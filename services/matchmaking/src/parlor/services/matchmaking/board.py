"""The tickets being watched in this process, read by one poll for all their watchers.

``WatchTicket`` used to read its own ticket every half second: a query per watcher per
poll, which took the store's pool from everyone else once a thousand people were
waiting. Each watcher now puts its ticket on the board, and the board reads the watched
tickets that are no longer waiting in one statement, every ``POLL_SECONDS`` and at once
when rung (a round or a cancel in this process), then wakes only the watchers whose
ticket changed. A change made by another replica (its round, a cancel there) is seen at
the next tick. A ticket's row changes once, when it leaves waiting (matched, cancelled,
expired, withdrawn, lobby closed), so the poll reads back only those: it used to read
every watched ticket at every tick, a row converted per watcher twice a second (about 60
ms of CPU a second for 200 watchers, ``bench/idle_bench.py``).

A poll hands a watcher only rows read after it joined (the watchers are taken when
the poll starts), and a ticket only moves from waiting to its final status, so no
watcher goes back to an older row. A poll that fails (the database away) is logged
and tried again at the next tick; the watchers wait meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator

from parlor.services.matchmaking.tickets import TicketRow, Tickets

log = logging.getLogger("parlor.services.matchmaking.board")

POLL_SECONDS = 0.5
"""How often the watched tickets are read when nothing rings (changes made by another
replica: its rounds, its cancels)."""
MIN_GAP_SECONDS = 0.02
"""The least time between two polls, however often the board is rung."""
CHUNK = 1000
"""Ticket ids per statement."""


class Watch:
    """One watcher's view of its ticket: the newest row, and whether it is news."""

    def __init__(self, row: TicketRow) -> None:
        self.row = row
        self._news = asyncio.Event()

    def offer(self, row: TicketRow) -> None:
        if row != self.row:
            self.row = row
            self._news.set()

    async def next(self) -> TicketRow:
        """The row once it differs from the one last returned (or given at the start)."""
        await self._news.wait()
        self._news.clear()
        return self.row


class TicketBoard:
    """Every ticket watched in this process; ``run`` (a component task) polls them."""

    def __init__(self, tickets: Tickets | None, seconds: float = POLL_SECONDS) -> None:
        self.tickets = tickets
        self.seconds = seconds
        self.polls = 0
        self._watches: dict[str, set[Watch]] = {}
        self._rung = asyncio.Event()

    def ring(self) -> None:
        """Something changed tickets: poll now rather than at the next tick."""
        self._rung.set()

    @property
    def watched(self) -> int:
        return len(self._watches)

    @contextlib.contextmanager
    def watching(self, row: TicketRow) -> Iterator[Watch]:
        """Follow ``row``'s ticket until the block ends (its row as read by the caller)."""
        watch = Watch(row)
        self._watches.setdefault(row.ticket_id, set()).add(watch)
        try:
            yield watch
        finally:
            watchers = self._watches.get(row.ticket_id)
            if watchers is not None:
                watchers.discard(watch)
                if not watchers:
                    del self._watches[row.ticket_id]

    async def poll(self) -> None:
        """Read the watched tickets that left waiting and hand each watcher its row."""
        assert self.tickets is not None, "a board that polls reads from the tickets"
        taken = {ticket_id: tuple(w) for ticket_id, w in self._watches.items()}
        ids = list(taken)
        self.polls += 1
        for start in range(0, len(ids), CHUNK):
            for row in await self.tickets.left_waiting(ids[start : start + CHUNK]):
                for watch in taken.get(row.ticket_id, ()):
                    watch.offer(row)

    async def run(self) -> None:
        """Forever: wait for a ring or the tick, then poll if anyone is watching."""
        failing = False
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._rung.wait(), self.seconds)
            self._rung.clear()
            if not self._watches:
                continue
            try:
                await self.poll()
            except Exception:
                if not failing:
                    log.exception("reading the watched tickets failed; trying again")
                failing = True
            else:
                failing = False
            await asyncio.sleep(MIN_GAP_SECONDS)
