"""The server's heap: start-up frozen out of the collector's rounds, fewer rounds, and every
round's pause in ``parlor_gc_pause_seconds``."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY, Histogram

from parlor.kit import heap
from parlor.kit.server import ServerSettings
from parlor.kit.settings import SettingsError, load


@pytest.fixture
def restored() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()


def pauses(generation: int, suffix: str = "count") -> float:
    value = REGISTRY.get_sample_value(
        f"parlor_gc_pause_seconds_{suffix}", {"generation": str(generation)}
    )
    assert value is not None
    return value


def test_every_round_of_the_collector_is_a_pause_in_its_generations_histogram() -> None:
    heap.watch_pauses()
    heap.watch_pauses()  # once per process, however often asked
    assert gc.callbacks.count(heap.PAUSES.callback) == 1
    before = {g: pauses(g) for g in (0, 1, 2)}
    spent = pauses(2, "sum")
    gc.collect(0)
    gc.collect(2)
    gc.collect(2)
    assert pauses(0) >= before[0] + 1
    assert pauses(2) >= before[2] + 2
    assert pauses(2, "sum") > spent
    # the buckets count up to every pause (+Inf): read with the collector off, so that no
    # round of its own (another test's threads allocate too) falls between the two reads
    gc.disable()
    try:
        counts = [
            REGISTRY.get_sample_value(
                "parlor_gc_pause_seconds_bucket", {"generation": "2", "le": str(bound)}
            )
            or 0.0
            for bound in (*heap.PAUSE_BUCKETS, "+Inf")
        ]
        total = pauses(2)
    finally:
        gc.enable()
    assert counts == sorted(counts)
    assert counts[-1] == total


def test_a_round_inside_a_metrics_lock_does_not_wait_on_it() -> None:
    """gc runs its callbacks in the thread that allocated, which may hold a metric's lock:
    the pause is counted without one, so a round there goes on."""
    heap.watch_pauses()
    busy = Histogram("parlor_test_heap_busy_seconds", "a metric held while gc runs")
    value = busy._sum  # the value a Histogram updates under its lock
    before = pauses(2)
    with value._lock:
        gc.collect(2)
    assert pauses(2) == before + 1
    REGISTRY.unregister(busy)


def test_settle_heap_freezes_start_up_and_sets_the_thresholds(restored: None) -> None:
    start_up = [object() for _ in range(100)]  # noqa: F841 (alive, so frozen)
    heap.settle_heap()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == heap.THRESHOLDS
    assert heap.PAUSES.callback in gc.callbacks


@pytest.mark.parametrize("given", [(700, 10), (0, 10, 10), (700, 10, 10, 10)])
def test_thresholds_are_three_whole_numbers_of_at_least_one(given: tuple[int, ...]) -> None:
    with pytest.raises(SettingsError, match="PARLOR_GC_THRESHOLDS"):
        heap.checked_thresholds(given)
    assert heap.checked_thresholds((700, 10, 10)) == (700, 10, 10)
    assert heap.checked_thresholds(()) == heap.THRESHOLDS  # set empty: the default


def test_the_setting_is_read_as_the_collector_takes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load(ServerSettings).gc_thresholds == heap.THRESHOLDS
    monkeypatch.setenv("PARLOR_GC_THRESHOLDS", "700, 10, 10")
    assert load(ServerSettings).gc_thresholds == (700, 10, 10)
