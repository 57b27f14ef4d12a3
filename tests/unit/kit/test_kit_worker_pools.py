"""Workers share one process's database pools out between them."""

from __future__ import annotations

from parlor.kit.main import worker_pools
from parlor.kit.settings import DEFAULT_DATABASE_POOL_SIZE


def test_one_process_keeps_the_default_pool() -> None:
    assert worker_pools(1, {}) == {}


def test_each_of_n_workers_keeps_its_share_of_the_default() -> None:
    assert DEFAULT_DATABASE_POOL_SIZE == 10
    assert worker_pools(2, {}) == {"PARLOR_DATABASE_POOL_SIZE": "5"}
    assert worker_pools(3, {}) == {"PARLOR_DATABASE_POOL_SIZE": "4"}  # rounded up
    assert worker_pools(16, {}) == {"PARLOR_DATABASE_POOL_SIZE": "2"}  # never below 2


def test_a_pool_size_that_is_set_is_every_workers() -> None:
    assert worker_pools(4, {"PARLOR_DATABASE_POOL_SIZE": "8"}) == {}
    assert worker_pools(4, {"PARLOR_DATABASE_POOL_SIZE": " "}) == {"PARLOR_DATABASE_POOL_SIZE": "3"}
