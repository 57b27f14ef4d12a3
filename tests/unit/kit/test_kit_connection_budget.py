"""A server's connections to PostgreSQL: one budget, shared out between its workers, and
within a process between its sessions and its two pools."""

from __future__ import annotations

import pytest

from parlor.kit.connections import (
    MIN_CONNECTIONS,
    SESSIONS,
    ConnectionBudget,
    worker_budget,
)
from parlor.kit.settings import DEFAULT_DATABASE_POOL_SIZE, SettingsError


@pytest.mark.parametrize(
    ("total", "statements", "transactions"),
    [(5, 2, 1), (6, 2, 2), (7, 3, 2), (10, 4, 4), (20, 9, 9)],
)
def test_a_process_budget_is_its_sessions_and_its_two_pools(
    total: int, statements: int, transactions: int
) -> None:
    budget = ConnectionBudget(total)
    assert (budget.statements, budget.transactions) == (statements, transactions)
    assert SESSIONS + budget.statements + budget.transactions == total


def test_a_budget_below_what_a_process_runs_on_is_refused_naming_the_setting() -> None:
    assert MIN_CONNECTIONS == 5
    with pytest.raises(SettingsError, match="PARLOR_DATABASE_POOL_SIZE=4 is too small"):
        ConnectionBudget(4)


def test_one_process_keeps_the_whole_budget() -> None:
    assert worker_budget(1, {}) == {}
    assert worker_budget(1, {"PARLOR_DATABASE_POOL_SIZE": "7"}) == {}


def test_each_of_n_workers_gets_its_share_of_the_default() -> None:
    assert DEFAULT_DATABASE_POOL_SIZE == 40
    assert worker_budget(2, {}) == {"PARLOR_DATABASE_POOL_SIZE": "20"}
    assert worker_budget(3, {}) == {"PARLOR_DATABASE_POOL_SIZE": "13"}
    # more workers than the default allows: 5 each (16 cores: 80 for the server)
    assert worker_budget(9, {}) == {"PARLOR_DATABASE_POOL_SIZE": "5"}
    assert worker_budget(16, {}) == {"PARLOR_DATABASE_POOL_SIZE": "5"}
    assert worker_budget(4, {"PARLOR_DATABASE_POOL_SIZE": " "}) == {
        "PARLOR_DATABASE_POOL_SIZE": "10"
    }


def test_a_budget_that_is_set_is_the_servers_split_between_its_workers() -> None:
    assert worker_budget(2, {"PARLOR_DATABASE_POOL_SIZE": "20"}) == {
        "PARLOR_DATABASE_POOL_SIZE": "10"
    }
    # rounded down: together they never open more than the budget
    assert worker_budget(3, {"PARLOR_DATABASE_POOL_SIZE": "17"}) == {
        "PARLOR_DATABASE_POOL_SIZE": "5"
    }


def test_a_budget_too_small_for_its_workers_is_refused() -> None:
    with pytest.raises(SettingsError, match=r"too small for 4 workers.*at least 20"):
        worker_budget(4, {"PARLOR_DATABASE_POOL_SIZE": "12"})


def test_a_budget_that_is_no_number_is_left_to_the_workers_settings() -> None:
    assert worker_budget(2, {"PARLOR_DATABASE_POOL_SIZE": "many"}) == {}
