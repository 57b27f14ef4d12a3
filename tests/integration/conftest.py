"""Start Parlor's components in-process on real PostgreSQL and NATS, as the platform does."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

import pytest

from parlor.devinfra.scratch import scratch_stream
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.main import available
from parlor.kit.server import Server, ServerSettings, running

TEST_KEY = generate_private_key()  # the identity key every component of a test run signs with


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
