"""Start Parlor's components in-process on real PostgreSQL and NATS, as the platform does.

A plugin of the root conftest (``pytest_plugins``), so its fixtures are defined once for the
whole run: the integration, web and Node.js tests share one ``backend_env`` (one signing key,
one stream) whichever of them a process runs first. A second definition (these fixtures
imported into another conftest) would be set up a second time, switch the environment to its
own key and stream, and leave the first one's platforms signing with the other key.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

import psycopg
import pytest

from parlor.devinfra.scratch import scratch_stream
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.connections import MIN_CONNECTIONS, POOL_SIZE
from parlor.kit.main import available
from parlor.kit.server import Server, ServerSettings, running
from parlor.kit.settings import DEFAULT_DATABASE_POOL_SIZE

TEST_KEY = generate_private_key()  # the identity key every component of a test run signs with


def worker_share(database_url: str) -> dict[str, str]:
    """On one of N pytest-xdist workers: ``PARLOR_DATABASE_POOL_SIZE``, the worker's share of
    half the server's connections (the other half for the tests' own connections and the
    servers they start as processes). N workers each at the default (40) would ask for more
    than a ``max_connections`` of 100 and be refused ("too many clients already")."""
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    if count <= 1:
        return {}
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT current_setting('max_connections')::int"
            " - current_setting('superuser_reserved_connections')::int"
        ).fetchone()
    share = (row[0] if row else 0) // (2 * count)
    return {POOL_SIZE: str(max(MIN_CONNECTIONS, min(DEFAULT_DATABASE_POOL_SIZE, share)))}


@pytest.fixture(scope="session")
def backend_env(database_url: str, nats_url: str) -> Iterator[None]:
    """Point every component at the test session's scratch database and NATS."""
    names = (
        "PARLOR_DATABASE_URL",
        "PARLOR_NATS_URL",
        "PARLOR_JWT_PRIVATE_KEY",
        "PARLOR_NATS_STREAM",
        "PARLOR_NATS_SUBJECT_PREFIX",
        "PARLOR_RATE_LIMIT_PER_SECOND",
        "PARLOR_MAX_OPEN_GAMES_PER_PLAYER",
        "PARLOR_DATABASE_POOL_SIZE",
    )
    saved = {k: os.environ.get(k) for k in names}
    # A stream and subjects of this session's own: durable consumers of test runs that share a
    # NATS server (CI beside a developer, parallel sessions) never steal each other's messages.
    # The stream is deleted when the session ends.
    with scratch_stream(nats_url, "test") as (stream, prefix):
        os.environ.update(
            PARLOR_DATABASE_URL=database_url,
            PARLOR_NATS_URL=nats_url,
            PARLOR_JWT_PRIVATE_KEY=TEST_KEY,
            PARLOR_NATS_STREAM=stream,
            PARLOR_NATS_SUBJECT_PREFIX=prefix,
            # load tests act as fast as they can; the limiter has its own tests
            PARLOR_RATE_LIMIT_PER_SECOND="0",
            # one session database for every test: "ada"'s unfinished games from all of them
            # would add up to the cap; the cap has its own tests (unit, and the directory's)
            PARLOR_MAX_OPEN_GAMES_PER_PLAYER="0",
        )
        os.environ.update(worker_share(database_url))
        yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
async def migrated(backend_env: None, database_url: str) -> None:
    from parlor.eventstore import migrate

    await migrate(database_url)


@pytest.fixture(scope="session")
def subject_prefix(backend_env: None) -> str:
    """Where this test session's events are published: ``<prefix>.<game type>.<id>.<Event>``."""
    return os.environ["PARLOR_NATS_SUBJECT_PREFIX"]


@dataclass
class Platform:
    server: Server
    auth: AuthSettings

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    @property
    def components(self) -> tuple[str, ...]:
        """The names of the components it runs: the audiences its services' tokens name."""
        return tuple(c.name for c in self.server.components)

    def token(
        self, player_id: str, roles: tuple[str, ...] = (), audience: tuple[str, ...] | None = None
    ) -> str:
        """A token signed with the identity key. A service token names the services it is
        for (``audience``); by default every component this platform runs, as an operator's
        tool would be given (a service takes a token only if it names it)."""
        if audience is None:
            audience = self.components if "service" in roles else ()
        return issue_token(self.auth, player_id, player_id.title(), roles, audience=audience)

    def channel(self, player_id: str | None = None):  # type: ignore[no-untyped-def]
        return client.channel(self.target, self.token(player_id) if player_id else None)

    def service_channel(self):  # type: ignore[no-untyped-def]
        """A platform service's channel. A player seats only themselves and bots; tests that
        seat people together without matchmaking create their games through this."""
        return client.channel(self.target, self.token("service:tests", roles=("service",)))


PlatformFactory = Callable[..., contextlib.AbstractAsyncContextManager[Platform]]


@pytest.fixture(scope="session")
def start_platform(migrated: None) -> PlatformFactory:
    """``async with start_platform("connect4x4", "relay") as p:`` runs those components."""

    @contextlib.asynccontextmanager
    async def start(*names: str) -> AsyncIterator[Platform]:
        factories = available()
        auth = AuthSettings(private_key=TEST_KEY)
        settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=2)
        async with running(settings, [factories[n] for n in names], auth) as server:
            yield Platform(server, auth)

    return start


@pytest.fixture
def own_database(
    backends: object, migrated: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A migrated database of this test's own, which the platforms it starts and the commands
    it runs then use (``PARLOR_DATABASE_URL``): for a test about every game stored, which the
    session's database holds whatever the tests run before it left there (hand-written
    streams among them), in whatever order a worker ran them."""
    from kits.stores import migrated_scratch_database

    with migrated_scratch_database(backends) as url:
        monkeypatch.setenv("PARLOR_DATABASE_URL", url)
        yield url
