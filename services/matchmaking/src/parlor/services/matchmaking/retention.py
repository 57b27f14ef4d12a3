"""The retention sweep: finished tickets, their matches and emptied lobbies are deleted.

A ticket that is cancelled, expired, withdrawn, lobby-closed or matched never changes
again, and a lobby whose tickets are all gone can only be rejoined by its host; without a
sweep the tables grow with every game ever played. Nothing needs these rows once the players have
seen the outcome: a game is created from ``MatchFormed`` in the event store (the
source of truth for matches, which keeps it), and match ids are checked against the
event store, not ``mm_matches``. So every ``PARLOR_MATCHMAKING_RETENTION_HOURS`` after
they finished, rows go, in batches of ``BATCH`` (each a short transaction):

1. matches formed before the cutoff, with their ``mm_match_players`` and their tickets;
2. cancelled, expired, withdrawn and lobby-closed tickets closed before the cutoff;
3. lobbies made before the cutoff with no ticket left in them.

Any number of replicas may sweep at once: each batch locks its rows with ``FOR UPDATE
SKIP LOCKED``, so two sweeps take different rows and never wait for each other. A lobby
is deleted by a second statement run after its row is locked: a JoinLobby writes its
ticket under that lock, so the sweep either sees the new ticket (and keeps the lobby) or
the joiner waits and finds no lobby (LOBBY_NOT_FOUND). Afterwards ``GetTicket`` and
``WatchTicket`` on a deleted ticket are NOT_FOUND ``TICKET_NOT_FOUND``, as for an
unknown id.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from parlor.services.matchmaking.tickets import FINISHED_UNMATCHED

log = logging.getLogger("parlor.services.matchmaking.retention")

BATCH = 1000
"""Rows (matches, tickets or lobbies) per transaction."""
MAX_BATCHES = 20
"""Batches of each kind per sweep: a backlog is worked off over several sweeps."""
SWEEP_SECONDS = 300.0
"""How often each replica sweeps."""

_OLD_MATCHES = text(
    "SELECT match_id FROM mm_matches WHERE formed_at < clock_timestamp() - :keep"
    " ORDER BY formed_at LIMIT :n FOR UPDATE SKIP LOCKED"
)
_ENDED = ", ".join(f"'{status}'" for status in FINISHED_UNMATCHED)  # as mm_tickets_finished
_OLD_TICKETS = text(
    "DELETE FROM mm_tickets WHERE ticket_id IN (SELECT ticket_id FROM mm_tickets"
    f" WHERE status IN ({_ENDED})"
    " AND closed_at < clock_timestamp() - :keep"
    " ORDER BY closed_at LIMIT :n FOR UPDATE SKIP LOCKED)"
)
_EMPTY_LOBBIES = " NOT EXISTS (SELECT 1 FROM mm_tickets t WHERE t.lobby = l.code)"  # any status
_OLD_LOBBIES = text(
    "SELECT code FROM mm_lobbies l WHERE created_at < clock_timestamp() - :keep"
    f" AND {_EMPTY_LOBBIES} ORDER BY created_at LIMIT :n FOR UPDATE SKIP LOCKED"
)
_DELETE_LOBBIES = text(f"DELETE FROM mm_lobbies l WHERE code = ANY(:codes) AND {_EMPTY_LOBBIES}")


@dataclass(frozen=True)
class Swept:
    matches: int = 0
    tickets: int = 0
    lobbies: int = 0

    def __add__(self, other: Swept) -> Swept:
        return Swept(
            self.matches + other.matches,
            self.tickets + other.tickets,
            self.lobbies + other.lobbies,
        )


class Retention:
    """Deletes what finished more than ``keep`` ago; safe on every replica at once."""

    def __init__(self, engine: AsyncEngine, keep: timedelta, batch: int = BATCH) -> None:
        self.engine = engine
        self.keep = keep
        self.batch = batch

    async def sweep(self) -> Swept:
        """One pass: up to ``MAX_BATCHES`` batches of each kind, oldest first."""
        total = Swept()
        for step in (self._matches, self._tickets, self._lobbies):
            for _ in range(MAX_BATCHES):
                async with self.engine.begin() as conn:
                    done, taken = await step(conn)
                total += done
                if taken < self.batch:  # the last of them
                    break
        return total

    # Each step: what it deleted, and how many rows its batch took (a full batch: more left).

    async def _matches(self, conn: AsyncConnection) -> tuple[Swept, int]:
        ids = [m for (m,) in await conn.execute(_OLD_MATCHES, self._args())]
        if not ids:
            return Swept(), 0
        tickets = [
            t
            for (t,) in await conn.execute(
                text("DELETE FROM mm_match_players WHERE match_id = ANY(:m) RETURNING ticket_id"),
                {"m": ids},
            )
        ]
        await conn.execute(text("DELETE FROM mm_tickets WHERE ticket_id = ANY(:t)"), {"t": tickets})
        await conn.execute(text("DELETE FROM mm_matches WHERE match_id = ANY(:m)"), {"m": ids})
        return Swept(matches=len(ids), tickets=len(tickets)), len(ids)

    async def _tickets(self, conn: AsyncConnection) -> tuple[Swept, int]:
        deleted = (await conn.execute(_OLD_TICKETS, self._args())).rowcount
        return Swept(tickets=deleted), deleted

    async def _lobbies(self, conn: AsyncConnection) -> tuple[Swept, int]:
        codes = [c for (c,) in await conn.execute(_OLD_LOBBIES, self._args())]
        if not codes:
            return Swept(), 0
        # A statement of its own, after the locks: it sees a JoinLobby that committed a
        # ticket before the lock was taken (the locking statement's snapshot may not).
        deleted = await conn.execute(_DELETE_LOBBIES, {"codes": codes})
        return Swept(lobbies=deleted.rowcount), len(codes)

    def _args(self) -> dict[str, object]:
        return {"keep": self.keep, "n": self.batch}


async def run_sweeps(retention: Retention, seconds: float = SWEEP_SECONDS) -> None:
    """Forever: a sweep, then a pause; a failed sweep is logged and tried at the next."""
    while True:
        try:
            swept = await retention.sweep()
        except Exception:
            log.exception("retention sweep failed")
        else:
            if swept != Swept():
                log.info(
                    "retention sweep",
                    extra={
                        "matches": swept.matches,
                        "tickets": swept.tickets,
                        "lobbies": swept.lobbies,
                    },
                )
        await asyncio.sleep(seconds)
