"""The parent of ``--workers N`` stops on a signal, whatever its main thread held then.

A signal's handler runs in the main thread between two of its steps. When that thread was
inside ``threading.Event.wait`` (the parent's watch loop) holding the event's lock, a
handler that set the event waited on that lock, held by its own thread, forever: the
workers stopped, the parent never did (``make run`` hung on Ctrl-C, once in a while).
"""

from __future__ import annotations

import signal
import threading

from parlor.kit.workers import Workers


def _workers() -> Workers:
    return Workers("parlor.kit.main", lambda _: [], 0, {}, 0, 0, grace_seconds=0.1)


def test_the_signal_handler_takes_no_lock_the_interrupted_thread_may_hold() -> None:
    workers = _workers()
    held = [lock for lock in vars(workers).values() if hasattr(lock, "acquire")]
    held += [vars(event)["_cond"] for event in vars(workers).values() if hasattr(event, "_cond")]
    returned = threading.Event()

    def interrupted_while_holding() -> None:
        for lock in held:
            lock.acquire()
        try:
            workers.on_signal(signal.SIGTERM, None)
            returned.set()
        finally:
            for lock in reversed(held):
                lock.release()

    thread = threading.Thread(target=interrupted_while_holding, daemon=True)
    thread.start()
    assert returned.wait(2), "the handler waited on a lock its own thread held"


def test_after_a_signal_the_watch_loop_stops_and_reports_a_clean_stop() -> None:
    workers = _workers()
    workers.on_signal(signal.SIGINT, None)
    finished: list[int] = []
    thread = threading.Thread(target=lambda: finished.append(workers.wait()), daemon=True)
    thread.start()
    thread.join(5)
    assert finished == [0]


def test_a_signal_reaches_the_watch_loop_through_the_installed_handler() -> None:
    workers = _workers()
    previous = signal.signal(signal.SIGUSR1, workers.on_signal)
    try:
        signal.raise_signal(signal.SIGUSR1)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert workers.wait() == 0
