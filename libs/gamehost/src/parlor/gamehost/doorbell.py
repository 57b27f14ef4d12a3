"""Wakes watchers of a game when it may have new events.

The store is the truth; the doorbell only says "look again". It is rung by
local appends and by the bus (events another replica appended), and watchers
also look again after a timeout, so a lost ring delays an update, never loses it.
"""

from __future__ import annotations

import asyncio
import contextlib


class Doorbell:
    def __init__(self) -> None:
        self._bells: dict[str, asyncio.Event] = {}

    def bell(self, game_id: str) -> asyncio.Event:
        """Take this before reading the store; it is set by any ring after that."""
        bell = self._bells.get(game_id)
        if bell is None:
            bell = self._bells[game_id] = asyncio.Event()
        return bell

    def ring(self, game_id: str) -> None:
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
