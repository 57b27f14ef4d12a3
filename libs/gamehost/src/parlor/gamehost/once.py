"""Something slow to build (a bot's word index), built once, off the event loop, when needed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class BuiltOnce(Generic[T]):
    """``await get()`` builds the value in a worker thread the first time; callers that come
    while it is being built wait for that build (it is never built twice)."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: tuple[T] | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> T:
        if self._value is None:
            async with self._lock:
                if self._value is None:
                    self._value = (await asyncio.to_thread(self._build),)
        return self._value[0]
