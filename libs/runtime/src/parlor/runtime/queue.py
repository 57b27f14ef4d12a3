"""One writer per game in this process: commands on a game wait their turn instead of colliding.

In a game of simultaneous play (Take Four) up to 8 players send commands to one game at
the same moment. Deciding them all at once would make every append but one fail its
expected version and be decided again (a conflict storm). Inside one replica
they queue on a lock per game, so a command is decided on the latest state and
appended at the first try; conflicts remain only between replicas, where the
game host's retry handles them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

PER_GAME_HELP = (
    "queue commands on one game inside a replica (false: let them race and retry conflicts)"
)
"""What a game's setting switching its queue on says (Take Four's
``PARLOR_TAKEFOUR_QUEUE_PER_GAME``; the env name is the game's own)."""


class GameQueue:
    """A lock per game, held while a command is decided and appended (``turn``)."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def turn(self, game_id: str) -> AsyncIterator[None]:
        """Hold the game's lock; the lock is forgotten when nobody waits for it."""
        lock, users = self._locks.get(game_id, (asyncio.Lock(), 0))
        self._locks[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[game_id]
            if users == 1:
                del self._locks[game_id]
            else:
                self._locks[game_id] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)
