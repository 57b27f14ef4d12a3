"""A server's heap and Python's garbage collector: fewer rounds, each one's pause measured.

CPython's collector stops the event loop for each round, and a round's pause grows with
the objects it goes through. A server under load makes objects that live a few
milliseconds (a call's messages, futures, coroutine frames): with the default thresholds
(a young round every 700 allocations net) they outlive rounds and reach the old
generation, whose full rounds then come every few seconds, 30-130 ms each on a 250-game
run (games' states, caches). So:

- ``settle_heap`` (once started) collects what start-up left and freezes the rest, which
  lives as long as the server (modules, descriptors, settings): no round visits it again;
- ``THRESHOLDS`` make the young rounds rarer (those short-lived objects die first) and the
  full ones much rarer; a 250-game human-pace run's server spent 210-280 ms in the
  collector per 23-26 s window instead of 390-870, with one full round (40-100 ms) in the
  window instead of two to five (``docs/performance.md``);
- ``parlor_gc_pause_seconds{generation}`` is a histogram of every round's pause, for
  dashboards (``docs/observability.md``).
"""

from __future__ import annotations

import bisect
import gc
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import REGISTRY
from prometheus_client.core import HistogramMetricFamily
from prometheus_client.registry import Collector

from parlor.kit.settings import SettingsError

THRESHOLDS = (2000, 10, 100)  # PARLOR_GC_THRESHOLDS
"""``gc.set_threshold``: a young round every 2,000 allocations net (default 700), a middle
one every 10 young ones (as default), a full one every 100 middle ones (default 10), and
then only once the old generation has grown by a quarter (CPython's own rule)."""

PAUSE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class Pauses(Collector):
    """The collector's pauses by generation, as a Prometheus histogram.

    Counted in plain lists, without a lock: ``gc`` runs its callbacks in whatever thread
    allocated, which may be inside a metric's lock already (a ``Histogram`` would wait on
    itself there). The GIL keeps each update whole; rounds never overlap.
    """

    def __init__(self) -> None:
        self._started = 0.0
        self._counts = [[0] * (len(PAUSE_BUCKETS) + 1) for _ in range(3)]
        self._sums = [0.0] * 3

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        generation = min(int(info.get("generation", 2)), 2)
        self._counts[generation][bisect.bisect_left(PAUSE_BUCKETS, took)] += 1
        self._sums[generation] += took

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(
            "parlor_gc_pause_seconds",
            "Pauses of Python's garbage collector (the event loop stopped), by generation.",
            labels=["generation"],
        )
        for generation, counts in enumerate(self._counts):
            cumulative, buckets = 0, []
            for bound, count in zip((*PAUSE_BUCKETS, float("inf")), counts, strict=True):
                cumulative += count
                buckets.append(("+Inf" if bound == float("inf") else str(bound), cumulative))
            family.add_metric([str(generation)], buckets, self._sums[generation])
        yield family


PAUSES = Pauses()
REGISTRY.register(PAUSES)


def watch_pauses() -> None:
    """Time every round of the collector from now on (once per process)."""
    if PAUSES.callback not in gc.callbacks:
        gc.callbacks.append(PAUSES.callback)


def checked_thresholds(thresholds: tuple[int, ...]) -> tuple[int, int, int]:
    """``PARLOR_GC_THRESHOLDS`` as ``gc.set_threshold`` takes it (empty: ``THRESHOLDS``), or
    a SettingsError."""
    if not thresholds:
        return THRESHOLDS
    if len(thresholds) != 3 or min(thresholds) < 1:
        raise SettingsError(
            f"PARLOR_GC_THRESHOLDS: three whole numbers of at least 1 (young, middle, full"
            f" rounds), such as {','.join(map(str, THRESHOLDS))}; got {thresholds}"
        )
    return thresholds[0], thresholds[1], thresholds[2]


def settle_heap(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Once started: what start-up left as garbage collected, the rest frozen out of the
    collector's rounds (``gc.freeze``), the thresholds set and every pause timed."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    watch_pauses()
