"""Where the tests find PostgreSQL and NATS JetStream.

Integration tests always run against real servers and are never skipped: if no
backend can be found the run fails and says why. Backends are found by
``parlor.devinfra.backends`` (settings, then servers already on this machine,
then embedded servers, then testcontainers where Docker runs).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def backends() -> Iterator[Backends]:
    from parlor.devinfra.backends import Backends, find_backends

    with find_backends() as found:
        assert isinstance(found, Backends)
        yield found


@pytest.fixture(scope="session")
def database_url(backends: Backends) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this test session (dropped afterwards)."""
    from parlor.devinfra.backends import scratch_database

    with scratch_database(backends.database_url, f"parlor_test_{uuid.uuid4().hex[:10]}") as url:
        yield url


@pytest.fixture(scope="session")
def nats_url(backends: Backends) -> str:
    return backends.nats_url


@pytest.fixture
def unique() -> str:
    """A short unique token, for stream ids and NATS names that must not collide."""
    return uuid.uuid4().hex[:12]


if os.environ.get("CI"):
    os.environ.setdefault("PARLOR_REQUIRE_BACKENDS", "1")

if False:  # pragma: no cover - for type checkers only
    from parlor.devinfra.backends import Backends
