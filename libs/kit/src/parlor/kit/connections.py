"""How many connections a process may open to PostgreSQL, and how they are shared out.

``PARLOR_DATABASE_POOL_SIZE`` is a server's whole budget: every connection its processes
open to PostgreSQL, pools, relay and LISTEN together. ``--workers N`` splits it (each
worker gets ``budget // N``), so an operator sizes ``max_connections`` from it alone:
the sum of the budgets of every server (pod) that reaches the database, plus the migration
Job's one connection, plus the superuser's reserved slots.

Within a process (``ConnectionBudget``) the budget goes to:

- ``SESSIONS`` (2) that need a session of their own: the relay's (its lease and reads) and
  its LISTEN doorbell, held while it leads. Reserved in every process; a process without
  a relay (scoring) opens at most ``total - SESSIONS``;
- ``statements``: the event store's psycopg pool, shared by every store of the process.
  Each store call is one statement; a store's appends go to the database one batch at a
  time (group commit), so a pool of ``statements`` serves that many at once;
- ``transactions``: the SQLAlchemy engine, shared by the directory, the deadline index,
  the inbox and matchmaking's and scoring's tables, all short transactions. No overflow.

Both pools wait for a connection (2 s for a statement, 10 s for a transaction:
``parlor.gamehost.wiring.backends``) rather than open one more, and a caller left waiting hears
``UNAVAILABLE`` (``DATABASE_UNAVAILABLE``) and retries. Start-up
migrations (matchmaking's and scoring's own tables) use one connection before any pool
opens, so they too stay within the budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from parlor.kit.settings import DEFAULT_DATABASE_POOL_SIZE, SettingsError

POOL_SIZE = "PARLOR_DATABASE_POOL_SIZE"
SESSIONS = 2
"""The relay's own session and its LISTEN doorbell (they need sessions, not pooled calls)."""
MIN_CONNECTIONS = SESSIONS + 3
"""The least a process runs on: its sessions, two statements (an append and a read at
once), one transaction."""


@dataclass(frozen=True)
class ConnectionBudget:
    """One process's connections to PostgreSQL: ``total``, shared out as the module says."""

    total: int

    def __post_init__(self) -> None:
        if self.total < MIN_CONNECTIONS:
            raise SettingsError(
                f"{POOL_SIZE}={self.total} is too small: a process needs at least "
                f"{MIN_CONNECTIONS} connections to PostgreSQL ({SESSIONS} for the relay's "
                "session and its LISTEN, 2 for the event store's statements, 1 for transactions)"
            )

    @property
    def statements(self) -> int:
        """The event store's pool: half of what the sessions leave, rounded up."""
        return (self.total - SESSIONS + 1) // 2

    @property
    def transactions(self) -> int:
        """The SQLAlchemy engine's pool: the rest."""
        return self.total - SESSIONS - self.statements


def worker_budget(count: int, environ: Mapping[str, str]) -> dict[str, str]:
    """The ``PARLOR_DATABASE_POOL_SIZE`` each of ``count`` workers is started with: its share
    of the server's budget (the setting, else ``DEFAULT_DATABASE_POOL_SIZE``, raised to
    ``MIN_CONNECTIONS`` a worker when there are more workers than that allows). A budget
    set too small for its workers is refused, naming the setting."""
    if count <= 1:
        return {}
    raw = environ.get(POOL_SIZE, "").strip()
    if not raw:
        total = max(DEFAULT_DATABASE_POOL_SIZE, MIN_CONNECTIONS * count)
    else:
        try:
            total = int(raw)
        except ValueError:
            return {}  # each worker's own settings name it, as for one process
    share = total // count
    if share < MIN_CONNECTIONS:
        raise SettingsError(
            f"{POOL_SIZE}={total} is too small for {count} workers: each worker process needs "
            f"at least {MIN_CONNECTIONS} connections to PostgreSQL (set it to at least "
            f"{MIN_CONNECTIONS * count}, or run fewer workers)"
        )
    return {POOL_SIZE: str(share)}
