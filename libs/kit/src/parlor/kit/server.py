"""Build and run a grpc.aio server from components, with health, reflection and graceful stop.

A *component* is what one service contributes: its gRPC services and its
background tasks (relays, consumers). A separate deployment runs one
component; the all-in-one development platform runs them all on one server.
Both go through ``Server`` here, so they run the same code. A component's name is also
the audience its methods take service tokens for (``parlor.kit.auth``): on a shared
server, a call is checked for the component serving the called method.

**Health says what the process can do, one name per question** (``grpc.health.v1``):
``""`` is the process (alive: liveness and start-up probes); each service's name is its
readiness, SERVING once what it needs to take commands answers (``Component.ready``);
names of their own (``Component.checks``, ``BUS_HEALTH``) report dependencies a service
works without, NATS above all: a game service stores moves while NATS is away and the
relay publishes them later, so a NATS outage must not take every pod out of service. Each
name's status is also the gauge ``parlor_health_serving``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from parlor.kit import inprocess, tracing
from parlor.kit.auth import AuthSettings, check_keys
from parlor.kit.heap import THRESHOLDS, checked_thresholds, settle_heap
from parlor.kit.interceptor import ServerInterceptor
from parlor.kit.keepalive import KeepaliveSettings
from parlor.kit.metrics import serve_metrics
from parlor.kit.ratelimit import RateLimiter, RateLimitSettings
from parlor.kit.settings import SettingsError, load, setting
from parlor.telemetry.metrics import HEALTH_SERVING

log = logging.getLogger("parlor.kit.server")


@dataclass(frozen=True)
class ServerSettings:
    host: str = setting("PARLOR_GRPC_HOST", "address the gRPC server binds", "0.0.0.0")
    port: int = setting("PARLOR_GRPC_PORT", "gRPC port (0 picks a free one)", 50051)
    metrics_port: int = setting("PARLOR_METRICS_PORT", "Prometheus /metrics port (0: off)", 9090)
    grace_seconds: float = setting(
        "PARLOR_SHUTDOWN_GRACE_SECONDS", "time in-flight calls get to finish on SIGTERM", 10.0
    )
    max_message_bytes: int = setting(
        "PARLOR_MAX_MESSAGE_BYTES", "largest request or response message accepted", 4 * 1024 * 1024
    )
    log_level: str = setting("PARLOR_LOG_LEVEL", "log level: DEBUG, INFO, WARNING, ERROR", "INFO")
    log_format: Literal["auto", "json", "text"] = setting(
        "PARLOR_LOG_FORMAT",
        "log format: json, text, or auto (text on a terminal, JSON otherwise)",
        "auto",
    )
    gc_thresholds: tuple[int, ...] = setting(
        "PARLOR_GC_THRESHOLDS",
        "garbage collector thresholds once serving (gc.set_threshold: young, middle, full);"
        " 700,10,10 is CPython's own",
        THRESHOLDS,
    )
    workers: int = setting(
        "PARLOR_WORKERS",
        "worker processes sharing the gRPC port (SO_REUSEPORT); 0: one per core for"
        " parlor-platform, 1 for parlor-serve",
        0,
    )
    max_connection_age_seconds: float = setting(
        "PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS",
        "how long a client's connection may stay open (about: gRPC adds up to 10 % either way)"
        " before the server ends it (GOAWAY: new calls go on a new connection, calls in flight"
        " get PARLOR_SHUTDOWN_GRACE_SECONDS), so that clients balancing over every server"
        " resolve its name again and find servers added since; 0: for ever. Only for servers"
        " of short calls: a stream open longer is cut",
        0.0,
    )

    def __post_init__(self) -> None:
        age = self.max_connection_age_seconds
        if not 0 <= age < math.inf:  # nan too
            raise SettingsError(
                f"PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS: must be 0 (for ever) or a number of"
                f" seconds above 0, got {age!r}"
            )

    def connection_age_options(self) -> list[tuple[str, int]]:
        """The server's options ending each connection after ``max_connection_age_seconds``
        (none when 0), calls in flight given the shutdown grace to finish."""
        if not self.max_connection_age_seconds:
            return []
        return [
            ("grpc.max_connection_age_ms", _ms(self.max_connection_age_seconds)),
            ("grpc.max_connection_age_grace_ms", _ms(self.grace_seconds)),
        ]


def grpc_options(settings: ServerSettings) -> list[tuple[str, int]]:
    """The options of a server with ``settings``."""
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
        # the workers of one server share its port; a lone server refuses to share
        ("grpc.so_reuseport", 1 if (settings.workers or 1) > 1 else 0),
        # ping clients (a dead one's streams end) and take their pings
        *load(KeepaliveSettings).server_options(),
        # clients re-resolve and find new servers (PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS)
        *settings.connection_age_options(),
    ]


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


HealthCheck = Callable[[], Sequence[str]]
"""What is wrong with a dependency now (empty: nothing), for a health name of its own."""
BUS_HEALTH = "parlor.bus"
"""The health name of the bus: NATS connected and every durable consumer fetching."""
HEALTH_INTERVAL = 1.0
"""Seconds between two polls of the components' ``checks``."""


@dataclass(frozen=True)
class GrpcService:
    """One gRPC service of a component: its full name and how to add it to a server."""

    name: str
    add: Callable[[grpc.aio.Server], None]
    servicer: object | None = None
    """What answers it, for callers in this process whose target is this server: they call
    it directly (``parlor.kit.inprocess``). None: every caller goes through the network."""


@dataclass
class Component:
    """What a service contributes to a server."""

    name: str
    services: Sequence[GrpcService] = ()
    tasks: Sequence[Callable[[], Awaitable[None]]] = ()
    # full method names ("/pkg.Service/Method") callable without a token
    public_methods: frozenset[str] = frozenset()
    extra: dict[str, Any] = field(default_factory=dict)
    ready: Sequence[asyncio.Event] = ()
    """Set when what the services need to take commands answers: they report NOT_SERVING
    until all are (their readiness). Not NATS: a service that stores commands while NATS is
    away (the relay publishes later) reports the bus under ``checks`` instead."""
    checks: Mapping[str, HealthCheck] = field(default_factory=dict)
    """Health names of their own beside the services' (``BUS_HEALTH``: NATS and the
    consumers on it), polled every ``HEALTH_INTERVAL``: SERVING while the check finds no
    problem (every component's check of a name, on a shared server). No probe takes a
    pod out of service over them; metrics (``parlor_health_serving``) and alerts do."""


class Server:
    """A started gRPC server with its components; ``stop`` drains and shuts down."""

    def __init__(
        self,
        settings: ServerSettings,
        components: Sequence[Component],
        auth_settings: AuthSettings | None = None,
        rate_limits: RateLimitSettings | None = None,
        health_interval: float = HEALTH_INTERVAL,
    ) -> None:
        self.settings = settings
        self.health_interval = health_interval
        self.components = list(components)
        self.health = (
            health.aio.HealthServicer() if hasattr(health, "aio") else health.HealthServicer()
        )
        auth_settings = auth_settings or load(AuthSettings)
        check_keys(auth_settings)  # no key, no server (outside development mode)
        self._grpc = grpc.aio.server(
            interceptors=[
                *tracing.server_interceptors(),
                ServerInterceptor(
                    auth_settings,
                    frozenset().union(*(c.public_methods for c in components)),
                    RateLimiter(rate_limits or load(RateLimitSettings)),
                    # a token is verified for the component serving the called method
                    {s.name: c.name for c in components for s in c.services},
                ),
            ],
            options=grpc_options(settings),
        )
        self._tasks: list[asyncio.Task[None]] = []
        self._waiting: list[asyncio.Task[None]] = []
        self.port = 0
        self.metrics_port = 0
        self._in_process: list[Callable[[], None]] = []
        self.checks: dict[str, list[HealthCheck]] = {}
        for component in self.components:
            for name, check in component.checks.items():
                self.checks.setdefault(name, []).append(check)
        self._checking: asyncio.Task[None] | None = None
        self._status: dict[str, int] = {}

    @property
    def service_names(self) -> list[str]:
        return [s.name for c in self.components for s in c.services]

    async def check_health(self) -> dict[str, list[str]]:
        """Poll every health name of ``checks`` once and set its status; its problems."""
        found: dict[str, list[str]] = {}
        for name, checks in self.checks.items():
            problems = found[name] = []
            for check in checks:
                try:
                    problems.extend(check())
                except Exception as exc:  # a check that fails is a problem, not a crash
                    problems.append(f"the check failed: {type(exc).__name__}: {exc}")
            serving = health_pb2.HealthCheckResponse.SERVING
            status = serving if not problems else health_pb2.HealthCheckResponse.NOT_SERVING
            if self._status.get(name) != status:
                if problems:
                    log.warning("%s: NOT_SERVING: %s", name, "; ".join(problems)[:1000])
                elif name in self._status:
                    log.info("%s: SERVING again", name)
            await self._set(name, status)
        return found

    async def _keep_checking(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            await self.check_health()

    async def _set(self, name: str, status: int) -> None:
        self._status[name] = status
        await _set_health(self.health, name, status)

    async def start(self) -> None:
        for component in self.components:
            for service in component.services:
                service.add(self._grpc)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._grpc)
        reflection.enable_server_reflection(
            [*self.service_names, health.SERVICE_NAME, reflection.SERVICE_NAME], self._grpc
        )
        self.port = self._grpc.add_insecure_port(f"{self.settings.host}:{self.settings.port}")
        if self.port == 0:
            raise OSError(f"cannot bind gRPC to {self.settings.host}:{self.settings.port}")
        await self._grpc.start()
        for component in self.components:
            for task in component.tasks:
                self._tasks.append(asyncio.create_task(_supervised(component.name, task)))
        await self._set("", health_pb2.HealthCheckResponse.SERVING)
        await self.check_health()
        self._checking = asyncio.create_task(self._keep_checking(self.health_interval))
        for component in self.components:
            if all(event.is_set() for event in component.ready):
                await self._serving(component)
            else:
                await self._serving(component, health_pb2.HealthCheckResponse.NOT_SERVING)
                self._waiting.append(asyncio.create_task(self._when_ready(component)))
        # Last, so that nothing can fail after it: the servicers this process's own callers
        # call directly (until then they go through the port, already serving).
        at = inprocess.addresses(self.settings.host, self.port)
        for component in self.components:
            for service in component.services:
                if service.servicer is not None:
                    self._in_process.append(inprocess.register(service.name, service.servicer, at))
        log.info(
            "serving",
            extra={"port": self.port, "services": self.service_names},
        )

    async def _serving(
        self, component: Component, status: int = health_pb2.HealthCheckResponse.SERVING
    ) -> None:
        for service in component.services:
            await self._set(service.name, status)

    async def _when_ready(self, component: Component) -> None:
        log.warning("waiting for dependencies", extra={"component": component.name})
        for event in component.ready:
            await event.wait()
        await self._serving(component)
        log.info("dependencies answer: serving", extra={"component": component.name})

    async def wait_tasks(self) -> None:
        """Return when any background task ends (which only happens when it fails)."""
        if self._tasks:
            await asyncio.wait(self._tasks, return_when=asyncio.FIRST_COMPLETED)
        else:
            await asyncio.Event().wait()

    async def stop(self) -> None:
        """Stop taking calls, let in-flight calls finish within the grace, then stop tasks."""
        for waiting in self._waiting:
            waiting.cancel()
        if self._checking is not None:
            self._checking.cancel()
            await asyncio.wait([self._checking])  # no poll sets a status after these
        for name in ["", *self.service_names, *self.checks]:
            await self._set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await self._grpc.stop(self.settings.grace_seconds)
        # (after the grace: a call finishing meanwhile still asks this process's services)
        self._unregister()
        # Cancel until they end: on Python 3.11 a library's wait_for (nats-py publishing, say)
        # can swallow a cancellation, and the task would run on and hold the stop forever.
        pending = set(self._tasks)
        while pending:
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=1.0)
        for task in self._tasks:
            if not task.cancelled():
                task.exception()  # retrieved: a failed task was logged when it failed
        log.info("stopped")

    def _unregister(self) -> None:
        for unregister in self._in_process:
            unregister()
        self._in_process.clear()


async def _set_health(servicer: Any, name: str, status: int) -> None:
    HEALTH_SERVING.labels(name).set(1 if status == health_pb2.HealthCheckResponse.SERVING else 0)
    result = servicer.set(name, status)
    if asyncio.iscoroutine(result):
        await result


async def _supervised(component: str, task: Callable[[], Awaitable[None]]) -> None:
    try:
        await task()
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("background task failed", extra={"component": component})
        raise


ComponentFactory = Callable[[], contextlib.AbstractAsyncContextManager[Component]]


@contextlib.asynccontextmanager
async def running(
    settings: ServerSettings,
    factories: Sequence[ComponentFactory],
    auth_settings: AuthSettings | None = None,
    rate_limits: RateLimitSettings | None = None,
) -> AsyncIterator[Server]:
    """Build components, start the server, and stop everything on exit (for tests too)."""
    async with contextlib.AsyncExitStack() as stack:
        components = [await stack.enter_async_context(factory()) for factory in factories]
        server = Server(settings, components, auth_settings, rate_limits)
        await server.start()
        try:
            yield server
        finally:
            await server.stop()


async def serve(settings: ServerSettings, factories: Sequence[ComponentFactory]) -> int:
    """Run until SIGTERM or SIGINT (then drain gracefully), or until a background task fails."""
    thresholds = checked_thresholds(settings.gc_thresholds)
    if settings.metrics_port:
        serve_metrics(settings.host, settings.metrics_port)
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    async with running(settings, factories) as server:
        settle_heap(thresholds)
        print(
            f"parlor: serving {', '.join(server.service_names)} on port {server.port}", flush=True
        )
        waiter = asyncio.create_task(stopping.wait())
        tasks = asyncio.create_task(server.wait_tasks())
        done, _ = await asyncio.wait({waiter, tasks}, return_when=asyncio.FIRST_COMPLETED)
        failed = tasks in done
        waiter.cancel()
        tasks.cancel()
        log.info("shutting down", extra={"reason": "task failed" if failed else "signal"})
    return 1 if failed else 0
