"""Fixtures for the accounts tests: the event store both ways (in memory and PostgreSQL)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from oidc_provider import (
    CLIENT_ID,
    CLIENT_SECRET,
    REDIRECT_URI,
    OidcProvider,
    running_provider,
    signing_keys,
)

from parlor.eventstore import EventStore, InMemoryEventStore, PostgresEventStore
from parlor.eventstore.migrate import migrate_blocking


@pytest.fixture(scope="session")
def accounts_url(backends: object) -> Iterator[str]:
    """A database with the event store schema, of these tests' own."""
    from parlor.devinfra.backends import Backends, scratch_database
    from parlor.devinfra.scratch import scratch_name

    assert isinstance(backends, Backends)
    with scratch_database(backends.database_url, scratch_name("test")) as url:
        migrate_blocking(url)
        yield url


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        yield InMemoryEventStore()
        return
    pg = PostgresEventStore(request.getfixturevalue("accounts_url"), poll_interval=0.2)
    try:
        yield pg
    finally:
        await pg.close()


@pytest.fixture(scope="module")
def grpc_idp() -> Iterator[OidcProvider]:
    """A real OpenID Connect provider process, for the module's tests over gRPC."""
    with running_provider(signing_keys("grpc-key")) as provider:
        yield provider


@pytest.fixture
def accounts_platform(
    start_platform: Any, grpc_idp: OidcProvider, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    """``async with accounts_platform("matchmaking", ...)``: those components, with the
    provider ``test`` configured."""
    declared = {
        "test": {"issuer": grpc_idp.issuer, "client_id": CLIENT_ID, "redirect_uris": [REDIRECT_URI]}
    }
    monkeypatch.setenv("PARLOR_OIDC_PROVIDERS", json.dumps(declared))
    monkeypatch.setenv("PARLOR_OIDC_CLIENT_SECRETS", json.dumps({"test": CLIENT_SECRET}))
    # every call here comes from 127.0.0.1: a sign-in's tokenless calls (BeginSignIn,
    # CompleteSignIn, then RenewSession and SignOut) share one visitor's guest budget,
    # which a test of many sign-ins from one address would exhaust
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    return start_platform  # type: ignore[no-any-return]
