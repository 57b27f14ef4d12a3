"""``parlor-platform``: every installed service in one process, for development.

PostgreSQL and NATS come from ``PARLOR_DATABASE_URL`` and ``PARLOR_NATS_URL``
when set; otherwise embedded servers are started with their data under
``PARLOR_DATA_DIR`` (default ``.parlor/``) and stopped on exit. Then the
database is migrated and every service registered under the
``parlor.services`` entry points is served on one gRPC port, with the same
component code a separate deployment runs. The web client (``parlor.webgateway``,
when installed) is served beside them on ``PARLOR_WEB_PORT`` (default 8080).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from parlor.devinfra.backends import BackendsNotFound, find_backends
from parlor.kit import logs
from parlor.kit.main import available
from parlor.kit.server import ComponentFactory, ServerSettings, serve
from parlor.kit.settings import SettingsError, load, setting

log = logging.getLogger("parlor.platform")


@dataclass(frozen=True)
class PlatformSettings:
    """Settings only the all-in-one platform reads."""

    data_dir: Path = setting(
        "PARLOR_DATA_DIR", "where embedded PostgreSQL and NATS keep their data", Path(".parlor")
    )


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlor-platform", description=__doc__)
    parser.add_argument(
        "--only", nargs="*", default=None, help="serve only these services (default: all)"
    )
    args = parser.parse_args(argv)
    try:
        server_settings = load(ServerSettings)
        data_dir = load(PlatformSettings).data_dir
    except SettingsError as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 2
    logs.configure("platform", server_settings.log_level, server_settings.log_format)
    factories = _with_web(available())
    names = sorted(factories) if args.only is None else args.only
    missing = [n for n in names if n not in factories]
    if missing:
        print(
            f"parlor-platform: unknown service(s) {missing}; installed: {sorted(factories)}",
            file=sys.stderr,
        )
        return 2
    try:
        with find_backends(["settings", "embedded"], data_dir) as backends:
            os.environ["PARLOR_DATABASE_URL"] = backends.database_url
            os.environ["PARLOR_NATS_URL"] = backends.nats_url
            print(
                f"parlor: PostgreSQL ({backends.database_origin}) {backends.database_url}\n"
                f"parlor: NATS ({backends.nats_origin}) {backends.nats_url}",
                flush=True,
            )

            async def run() -> int:
                await _migrate()
                return await serve(server_settings, [factories[n] for n in names])

            return asyncio.run(run())
    except BackendsNotFound as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 1
    except SettingsError as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
