"""The database ``make run`` keeps in this checkout, for ``parlor verify`` with no URL given.

``make run`` (``parlor-platform``) starts embedded PostgreSQL on ``PARLOR_DATA_DIR``
(default ``.parlor/`` where it was started: the checkout's root), data under
``<data dir>/postgres``. From the current directory up, the first such folder is the one: if
its server runs (``make run`` is up) it is read as it is, and left running; if not, it is
started for the command and stopped after it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


def data_dir_of(start: Path) -> Path | None:
    """``PARLOR_DATA_DIR``'s PostgreSQL data, else the nearest ``.parlor/postgres`` from
    ``start`` up."""
    configured = os.environ.get("PARLOR_DATA_DIR")
    above = [d / ".parlor" for d in (start, *start.parents)]
    candidates = [Path(configured)] if configured else above
    for data_dir in candidates:
        if (data_dir / "postgres" / "PG_VERSION").is_file():
            return (data_dir / "postgres").resolve()
    return None


@contextlib.contextmanager
def checkout_database(start: Path) -> Iterator[tuple[str, Path] | None]:
    """The URL of this checkout's ``make run`` database and its folder (None: there is none)."""
    found = data_dir_of(start)
    if found is None:
        yield None
        return
    from parlor.devinfra.embedded import EmbeddedPostgres

    server = EmbeddedPostgres(found)
    was_running = server.running()
    url = server.start()
    try:
        yield url, found
    finally:
        if not was_running:
            server.stop()
