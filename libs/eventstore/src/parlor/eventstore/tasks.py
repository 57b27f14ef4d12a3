"""Stopping a background task for good.

``task.cancel()`` then ``await task`` under ``suppress(CancelledError)`` has two faults: on
Python 3.11 a library's ``wait_for`` (nats-py's, say) may swallow the one cancellation, so
the task runs on and the await waits forever or the task outlives its owner; and the
suppress swallows a cancellation of the caller itself, so whoever stopped the caller is
ignored. ``cancel_until_done`` has neither.
"""

from __future__ import annotations

import asyncio
from typing import Any


async def cancel_until_done(task: asyncio.Task[Any], every: float = 1.0) -> None:
    """Cancel ``task`` every ``every`` seconds until it has ended, then retrieve its outcome
    (a task that failed logged its failure when it failed). A cancellation of the caller
    is not swallowed: it ends the wait, the task cancelled once more."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=every)
    if not task.cancelled():
        task.exception()
