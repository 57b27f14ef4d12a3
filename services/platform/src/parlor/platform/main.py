"""``parlor-platform``: every installed service on one port, for development.

PostgreSQL and NATS come from ``PARLOR_DATABASE_URL`` and ``PARLOR_NATS_URL``
when set (the database is created when it does not exist yet and the role may; a
NATS that does not answer yet is waited for: the services report NOT_SERVING until
it does); otherwise embedded servers are started with their data under
``PARLOR_DATA_DIR`` (default ``.parlor/``) and stopped on exit. Then the database
is migrated and every service registered under the ``parlor.services`` entry
points is served on one gRPC port (``--port``, else ``PARLOR_GRPC_PORT``, else
50051), with the same component code a separate deployment runs. Services in this
process reach each other on that port: the word games ask the dictionary served
here, whatever ``PARLOR_DICTIONARY_TARGET`` says. Unless ``PARLOR_NATS_STREAM`` and
``PARLOR_NATS_SUBJECT_PREFIX`` are set, the stream and subjects are named after
the database, so two platforms on one NATS never see each other's events. The web
client (``parlor.webgateway``, when installed) is served beside them on
``PARLOR_WEB_PORT`` (default 8080); its calls to this port name each browser's address,
which the services believe from loopback (``bridge_trust``), so every visitor has rate
limits and stream caps of their own.

It runs one worker process per core (``--workers N`` or ``PARLOR_WORKERS``
to choose): the backends are found or started and the database migrated once,
here, and the workers, children that get the backends' URLs, share the port
(``parlor.kit.workers``). With one worker this process serves by itself.

It runs in development mode (``PARLOR_DEV_MODE``). Tokens are signed with
``PARLOR_JWT_PRIVATE_KEY`` when set, else with a random Ed25519 key made once per
data directory (``<data dir>/jwt-signing-key.pem``, readable by its owner only;
the CLI signs with it too),
so tokens survive restarts but no two checkouts share a key.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import ipaddress
import logging
import os
import re
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from parlor.devinfra.backends import BackendsNotFound, ensure_database, find_backends
from parlor.devinfra.embedded import free_port
from parlor.kit import inprocess, logs, tracing
from parlor.kit.auth import data_dir_key
from parlor.kit.main import add_workers_argument, available, serve_workers
from parlor.kit.server import ComponentFactory, ServerSettings, serve
from parlor.kit.settings import SettingsError, load, setting
from parlor.kit.workers import default_count, die_with_parent

log = logging.getLogger("parlor.platform")


@dataclass(frozen=True)
class PlatformSettings:
    """Settings only the all-in-one platform reads."""

    data_dir: Path = setting(
        "PARLOR_DATA_DIR", "where embedded PostgreSQL and NATS keep their data", Path(".parlor")
    )


def own_target(settings: ServerSettings) -> str:
    """host:port at which services in this process reach the server they are served by
    (and so call it in the process: ``parlor.kit.inprocess``)."""
    return inprocess.own_target(settings.host, settings.port)


def in_process_targets(settings: ServerSettings, names: list[str]) -> dict[str, str]:
    """The client targets to point at this process: each service served here is called here."""
    return {"PARLOR_DICTIONARY_TARGET": own_target(settings)} if "dictionary" in names else {}


LOOPBACK = ("127.0.0.0/8", "::1/128", "::ffff:127.0.0.0/104")
"""Where the web bridge served here calls from: this process's own port, over loopback."""


def bridge_trust(
    names: list[str], environ: Mapping[str, str], host: str = "0.0.0.0"
) -> dict[str, str]:
    """The settings under which the services believe the browser address the web bridge
    served here names (``x-forwarded-for``), when it calls this process's own port.

    Without them every browser is the one client 127.0.0.1 to the services: one guest-token
    bucket and one address's cap on open streams for everybody on the web, so one visitor
    could lock every other out. Loopback is added to ``PARLOR_TRUSTED_PROXIES`` (what is
    set there is kept) and the header defaults to ``x-forwarded-for``; a bridge pointed
    elsewhere (``PARLOR_WEB_TARGET``) is left to the settings. A server bound to one
    address (``host``) is called at that address, which is trusted too.
    """
    if "web" not in names or environ.get("PARLOR_WEB_TARGET"):
        return {}
    trusted = [p.strip() for p in environ.get("PARLOR_TRUSTED_PROXIES", "").split(",")]
    kept = [p for p in trusted if p]
    wanted = {
        "PARLOR_TRUSTED_PROXIES": ",".join(
            [*kept, *(n for n in (*LOOPBACK, *_literal(host)) if n not in kept)]
        )
    }
    if not environ.get("PARLOR_CLIENT_ADDRESS_HEADER"):
        wanted["PARLOR_CLIENT_ADDRESS_HEADER"] = "x-forwarded-for"
    return wanted


def _literal(host: str) -> tuple[str, ...]:
    """The address a server bound to ``host`` alone is called at, if it is one (not a name
    or every interface)."""
    if host in inprocess.ANY_HOST:
        return ()
    try:
        return (str(ipaddress.ip_address(host.strip("[]"))),)
    except ValueError:
        return ()


def bus_names(database_url: str, environ: Mapping[str, str]) -> dict[str, str]:
    """A JetStream stream and subject prefix of this platform's own, named after its database.

    Two platforms on one NATS server with different databases get different names; one set
    explicitly (``PARLOR_NATS_STREAM``, ``PARLOR_NATS_SUBJECT_PREFIX``) is kept.
    """
    database = unquote(urlsplit(database_url).path.lstrip("/")) or "postgres"
    token = re.sub(r"[^a-z0-9_-]", "_", database.lower())
    derived = {
        "PARLOR_NATS_STREAM": f"PARLOR_{token.upper().replace('-', '_')}_EVENTS",
        "PARLOR_NATS_SUBJECT_PREFIX": f"parlor-{token}.events",
    }
    return {k: v for k, v in derived.items() if not environ.get(k)}


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def platform_settings(
    settings: ServerSettings, port: int | None, environ: Mapping[str, str], workers: int = 1
) -> ServerSettings:
    """The server settings with ``--port`` applied and every port made concrete.

    Port 0 is resolved here, before the services are built, so that they know where to
    call each other. The metrics port, unless set, is left off when its default is taken
    (another platform on this machine), so a second platform starts: worker i serves
    ``/metrics`` on that port + i, so any of the ``workers`` ports taken turns it off
    (one taken would stop that worker, and with it the platform).
    """
    if port is not None:
        settings = dataclasses.replace(settings, port=port)
    if settings.port == 0:
        bind = "127.0.0.1" if settings.host in inprocess.ANY_HOST else settings.host.strip("[]")
        settings = dataclasses.replace(settings, port=free_port(bind))
    if "PARLOR_METRICS_PORT" not in environ and settings.metrics_port:
        host = settings.host or "0.0.0.0"
        ports = range(settings.metrics_port, settings.metrics_port + max(workers, 1))
        taken = next((p for p in ports if not _port_free(host, p)), None)
        if taken is not None:
            print(
                f"parlor: metrics port {taken} is taken; /metrics is off"
                " (set PARLOR_METRICS_PORT to choose one)",
                flush=True,
            )
            settings = dataclasses.replace(settings, metrics_port=0)
    return settings


def development_keys(data_dir: Path) -> None:
    """Development mode, and the data directory's key unless a key is configured."""
    os.environ.setdefault("PARLOR_DEV_MODE", "true")
    if not os.environ.get("PARLOR_JWT_PRIVATE_KEY"):
        os.environ["PARLOR_JWT_PRIVATE_KEY"] = str(data_dir_key(data_dir, create=True).resolve())


async def _migrate() -> None:
    """Bring the database schema up to date, if the event store is installed."""
    try:
        from parlor.eventstore import migrate
    except ImportError:
        return
    await migrate(os.environ["PARLOR_DATABASE_URL"])


def _with_web(factories: dict[str, ComponentFactory]) -> dict[str, ComponentFactory]:
    """The web client and its bridge, under the name "web", when installed."""
    try:
        from parlor.webgateway.component import component
    except ImportError:
        return factories
    return {**factories, "web": component}


SINGLE = frozenset({"web"})
"""Served by the first worker only: the web client binds its own HTTP port, and one
process is plenty for a development bridge."""


def worker_services(names: list[str]) -> Callable[[int], list[str]]:
    """The ``--only`` arguments of worker i: every service; the web client on worker 0."""
    rest = [n for n in names if n not in SINGLE]
    return lambda index: ["--only", *(names if index == 0 else rest)]


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parlor-platform",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--only", nargs="*", default=None, help="serve only these services (default: all)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="gRPC port (default: PARLOR_GRPC_PORT, else 50051; 0 picks a free one)",
    )
    add_workers_argument(parser, "default: PARLOR_WORKERS, else one per core")
    parser.add_argument("--worker-of", type=int, default=None, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        server_settings = load(ServerSettings)
        data_dir = load(PlatformSettings).data_dir
    except SettingsError as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 2
    workers = args.workers or server_settings.workers or default_count()
    if args.only is not None and set(args.only) <= SINGLE:
        workers = 1
    logs.configure("platform", server_settings.log_level, server_settings.log_format)
    development_keys(data_dir)
    try:
        if tracing.configure("platform"):  # e.g. OTEL_TRACES_EXPORTER=console make run
            print("parlor: tracing on (OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_*)", flush=True)
    except ValueError as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 2
    factories = _with_web(available())
    names = sorted(factories) if args.only is None else args.only
    missing = [n for n in names if n not in factories]
    if missing:
        print(
            f"parlor-platform: unknown service(s) {missing}; installed: {sorted(factories)}",
            file=sys.stderr,
        )
        return 2
    if args.worker_of is not None:  # a worker: the parent found the backends and migrated
        die_with_parent(args.worker_of)
        try:
            return asyncio.run(serve(server_settings, [factories[n] for n in names]))
        finally:
            tracing.shutdown()
    server_settings = platform_settings(server_settings, args.port, os.environ, workers)
    for env, target in in_process_targets(server_settings, names).items():
        if os.environ.get(env, target) != target:
            print(f"parlor: {env}={os.environ[env]} ignored: using {target}, served here")
        os.environ[env] = target
    # Every component (the web bridge calling this port, say) sees the port served.
    os.environ["PARLOR_GRPC_PORT"] = str(server_settings.port)
    os.environ.update(bridge_trust(names, os.environ, server_settings.host))
    try:
        configured = os.environ.get("PARLOR_DATABASE_URL")
        if configured:
            created = ensure_database(configured)
            if created:
                print(f"parlor: {created}", flush=True)
        # A configured NATS that is not there yet is waited for by the services (NOT_SERVING
        # until it answers); embedded servers are started and waited for here.
        with find_backends(["settings", "embedded"], data_dir, unchecked=["nats"]) as backends:
            os.environ["PARLOR_DATABASE_URL"] = backends.database_url
            os.environ["PARLOR_NATS_URL"] = backends.nats_url
            os.environ.update(bus_names(backends.database_url, os.environ))
            print(
                f"parlor: PostgreSQL ({backends.database_origin}) {backends.database_url}\n"
                f"parlor: NATS ({backends.nats_origin}) {backends.nats_url}"
                f" stream {os.environ.get('PARLOR_NATS_STREAM')}"
                f" subjects {os.environ.get('PARLOR_NATS_SUBJECT_PREFIX')}.>",
                flush=True,
            )

            if workers > 1:
                asyncio.run(_migrate())
                return serve_workers(
                    names, workers, server_settings, "parlor.platform.main", worker_services(names)
                )

            async def run() -> int:
                await _migrate()
                return await serve(server_settings, [factories[n] for n in names])

            try:
                return asyncio.run(run())
            finally:
                tracing.shutdown()
    except BackendsNotFound as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 1
    except SettingsError as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
