"""``parlor-platform``: every installed service on one port, for development.

PostgreSQL and NATS come from ``PARLOR_DATABASE_URL`` and ``PARLOR_NATS_URL``
when set; otherwise embedded servers are started with their data under
``PARLOR_DATA_DIR`` (default ``.parlor/``) and stopped on exit. Then the
database is migrated and every service registered under the
``parlor.services`` entry points is served on one gRPC port, with the same
component code a separate deployment runs.

It runs one worker process per core (``--workers N`` or ``PARLOR_WORKERS``
to choose): the backends are found or started and the database migrated once,
here, and the workers, children that get the backends' URLs, share the port
(``parlor.kit.workers``). With one worker this process serves by itself.
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
from parlor.kit.main import add_workers_argument, available, serve_workers
from parlor.kit.server import ServerSettings, serve
from parlor.kit.settings import SettingsError, load, setting
from parlor.kit.workers import default_count

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlor-platform", description=__doc__)
    parser.add_argument(
        "--only", nargs="*", default=None, help="serve only these services (default: all)"
    )
    add_workers_argument(parser, "default: PARLOR_WORKERS, else one per core")
    args = parser.parse_args(argv)
    try:
        server_settings = load(ServerSettings)
        data_dir = load(PlatformSettings).data_dir
    except SettingsError as exc:
        print(f"parlor-platform: {exc}", file=sys.stderr)
        return 2
    workers = args.workers or server_settings.workers or default_count()
    logs.configure("platform", server_settings.log_level, server_settings.log_format)
    factories = available()
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

            if workers > 1:
                asyncio.run(_migrate())
                return serve_workers(names, workers, server_settings)

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
