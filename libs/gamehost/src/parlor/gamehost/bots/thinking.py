"""Where bots think: a small pool of worker processes, one per process, shared by every game.

A bot's search is pure Python: seconds of CPU that, on the event loop, stall every other
caller of the process, and that, in a thread, still hold the GIL (the loop then waits up to
the switch interval, 5 ms, at each of the many points a call gives the GIL up, for each
thread searching). So every bot of every game thinks here (``think``): in worker processes
(``PARLOR_BOT_WORKERS``, 1 by default), never on the loop and never holding its GIL; their
number bounds how many searches run at once however many games a player starts (the others
wait their turn in the pool's queue, their games waiting on their bots, nobody else's
calls). A search that outlives ``PARLOR_BOT_THINK_SECONDS`` is given up (``Unavailable``:
the bot is tried again as after any failed dependency); the engines' own budgets (nodes,
candidates) keep a search well inside it.

What is sent to a worker must be picklable: a module-level function and plain values. A
bot's word index is built in each worker once (``botwords.built_index`` caches per
process), never sent. Work that cannot be sent (a planner built from a test's word list)
runs in the pool's one thread (``think`` with ``in_thread=True``): bounded, but holding the
GIL while it runs.

Workers are started with ``spawn`` (the server's process has gRPC's and NATS's threads: a
fork of it is unsafe) the first time a bot thinks, so a service with no bot game pays
nothing.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from parlor.core.errors import ParlorError, Unavailable
from parlor.kit.settings import load, setting

T = TypeVar("T")


@dataclass(frozen=True)
class ThinkingSettings:
    workers: int = setting(
        "PARLOR_BOT_WORKERS",
        "worker processes the bots of all games of a process think in (0: one thread, the"
        " GIL held while a bot thinks: for tests)",
        1,
    )
    think_seconds: float = setting(
        "PARLOR_BOT_THINK_SECONDS",
        "the longest one bot's move may take, queue included, before it is given up and"
        " tried again later",
        30.0,
    )


@dataclass(frozen=True)
class _Failure:
    """A search's error as a worker sends it back: its class and fields, never the exception
    itself (an error whose ``__init__`` takes other arguments than ``args``, as the rules'
    ``RuleViolation``, cannot be unpickled, and the pool would be broken by it)."""

    kind: type[BaseException]
    message: str
    reason: str | None = None
    metadata: dict[str, str] | None = None

    def error(self) -> BaseException:
        if issubclass(self.kind, ParlorError):
            error = self.kind.__new__(self.kind)
            Exception.__init__(error, self.message)
            error.message, error.metadata = self.message, dict(self.metadata or {})
            error.reason = self.reason or self.kind.default_reason
            return error
        return RuntimeError(f"{self.kind.__name__}: {self.message}")


def _carried(fn: Callable[..., T], *args: Any) -> T | _Failure:
    """``fn(*args)`` in a worker, its error sent back as a ``_Failure``."""
    try:
        return fn(*args)
    except Exception as exc:
        if isinstance(exc, ParlorError):
            return _Failure(type(exc), exc.message, exc.reason, exc.metadata)
        return _Failure(type(exc), str(exc))


class Thinking:
    """A bounded place for bots' searches off the event loop (see the module)."""

    def __init__(self, workers: int = 1, think_seconds: float = 30.0) -> None:
        self.workers = max(0, workers)
        self.think_seconds = think_seconds
        self._lock = threading.Lock()
        self._processes: concurrent.futures.ProcessPoolExecutor | None = None
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    def _pool(self, in_thread: bool) -> concurrent.futures.Executor:
        with self._lock:
            if in_thread or self.workers == 0:
                if self._thread is None:
                    self._thread = concurrent.futures.ThreadPoolExecutor(
                        1, thread_name_prefix="parlor-bot"
                    )
                return self._thread
            if self._processes is None:
                self._processes = concurrent.futures.ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            return self._processes

    async def think(self, fn: Callable[..., T], *args: Any, in_thread: bool = False) -> T:
        """``fn(*args)`` in the pool, within ``think_seconds`` (else ``Unavailable``)."""
        future = self._pool(in_thread).submit(_carried, fn, *args)
        try:
            async with asyncio.timeout(self.think_seconds):
                done = await asyncio.wrap_future(future)
        except TimeoutError:
            future.cancel()  # still queued: never run; running: its result is dropped
            raise Unavailable(
                f"a bot took over {self.think_seconds} s to think", reason="BOT_TOO_SLOW"
            ) from None
        except BrokenProcessPool:
            self._broken()
            raise Unavailable("the bots' worker died", reason="BOT_UNAVAILABLE") from None
        if isinstance(done, _Failure):
            raise done.error()
        return done

    def _broken(self) -> None:
        """A worker died (killed, out of memory): the next search starts a new pool."""
        with self._lock:
            pool, self._processes = self._processes, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self, wait: bool = False) -> None:
        """Stop the pool: searches queued are dropped; ``wait``: until running ones end."""
        with self._lock:
            pools = [p for p in (self._processes, self._thread) if p is not None]
            self._processes = self._thread = None
        for pool in pools:
            pool.shutdown(wait=wait, cancel_futures=True)


_SHARED: Thinking | None = None
_SHARED_LOCK = threading.Lock()


def shared() -> Thinking:
    """The process's one ``Thinking``, from its settings: every game's bots share it, so N
    games of bots use its workers, not N cores."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            settings = load(ThinkingSettings)
            _SHARED = Thinking(settings.workers, settings.think_seconds)
            # Stopped before the interpreter tears down what the pool's manager thread uses
            # (else 3.11 prints an ignored AttributeError at exit).
            atexit.register(_SHARED.close, True)
        return _SHARED


async def think(fn: Callable[..., T], *args: Any, in_thread: bool = False) -> T:
    """``fn(*args)`` in the process's shared pool (``shared``)."""
    return await shared().think(fn, *args, in_thread=in_thread)
