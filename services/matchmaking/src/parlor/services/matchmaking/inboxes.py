"""The inboxes watched in this process (``WatchPlayer``), looked at by one poll for all.

Each ``WatchPlayer`` stream used to read its player's inbox every half second whether or
not anything had come: a statement per open stream twice a second, on every replica. A
watcher now reads when its bell rings (``playerwatch.Bells``), and the board rings it:

- at once when this process appended to the inbox (a challenge's notice, the turn feed's
  notice; they ring the bells themselves);
- within ``seconds`` when any replica did: every ``seconds``, while anyone is watched, the
  board reads the store's head (one statement) and, when it moved, which inboxes have an
  event since the last look (one statement per partition of the store's order, for every
  watcher together, ``parlor.eventstore.cursors.touched``), and rings the watched ones.

So a change reaches a watcher as soon as before, and the store is read once per change,
not once per watcher and tick. A watcher still reads on its own every
``PARLOR_MATCHMAKING_SAFETY_POLL_SECONDS`` (the board failing, a ring lost).

The board starts looking when the first watcher comes and forgets its place when the last
one goes; when it starts again it rings every watcher once, since a change may have come
between a watcher's own read and the board's first look.
"""

from __future__ import annotations

import asyncio
import logging

from parlor.eventstore import EventStore
from parlor.eventstore.cursors import Cursor, heads, touched
from parlor.services.matchmaking.challenges import INBOX
from parlor.services.matchmaking.playerwatch import Bells

log = logging.getLogger("parlor.services.matchmaking.inboxes")

POLL_SECONDS = 0.5
"""How often the board looks for inboxes another replica appended to."""


class InboxBoard:
    """Rings the watchers of every inbox appended to since its last look; ``run`` is a
    component task."""

    def __init__(self, store: EventStore, bells: Bells, seconds: float = POLL_SECONDS) -> None:
        self.store = store
        self.bells = bells
        self.seconds = seconds
        self.looks = 0
        """Looks at the store's head (each a statement; a moved head adds the ``touched``)."""
        self._covered: Cursor | None = None

    async def look(self) -> list[str]:
        """One look: the watched players whose inbox has news since the last, rung."""
        watched = self.bells.players
        if not watched:
            self._covered = None
            return []
        head = await heads(self.store)
        self.looks += 1
        covered, self._covered = self._covered, head
        if covered is None or len(covered) != len(head):
            rung = sorted(watched)  # starting (again): whatever came before this look
        else:
            streams = await touched(self.store, INBOX, covered, head)
            players = {stream.split("-", 1)[1] for stream in streams}
            rung = sorted(players & watched)
        self.bells.ring(rung)
        return rung

    async def run(self) -> None:
        """Forever: a look every ``seconds``; a failed one is logged and tried again (from
        the same place: nothing it had not seen is skipped)."""
        failing = False
        while True:
            await asyncio.sleep(self.seconds)
            before = self._covered
            try:
                await self.look()
            except Exception:
                self._covered = before
                if not failing:
                    log.exception("looking for changed inboxes failed; trying again")
                failing = True
            else:
                failing = False
