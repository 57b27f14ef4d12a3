"""Something slow to build (a bot's word index), built once, off the event loop, when needed."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class BuiltOnce(Generic[T]):
    """``await get()`` builds the value in a worker thread the first time; callers that come
    while it is being built wait for that build (it is never built twice).

    What the build made lives as long as the process and is left out of the garbage
    collector's rounds (``gc.freeze``), as ``parlor.kit.heap.settle_heap`` leaves what
    start-up made: a word index is hundreds of thousands of objects, and every full round
    went through them again (0.15-0.3 s each, the event loop stopped, in the middle of calls:
    the human-pace capacity run's p99).
    """

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: tuple[T] | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> T:
        if self._value is None:
            async with self._lock:
                if self._value is None:
                    self._value = (await asyncio.to_thread(self._build),)
                    gc.freeze()
        return self._value[0]
