"""``parlor-platform``: every installed service on one port, for development.

PostgreSQL and NATS come from ``PARLOR_DATABASE_URL`` and ``PARLOR_NATS_URL``
when set (a NATS that does not answer yet is waited for: the services report
NOT_SERVING until it does); otherwise embedded servers are started with their data under
``PARLOR_DATA_DIR`` (default ``.parlor/``) and stopped on exit. Then the
database is migrated and every service registered under the
``parlor.services`` entry points is served on one gRPC port, with the same
component code a separate deployment runs.

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
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from parlor.devinfra.backends import BackendsNotFound, find_backends
from parlor.kit import logs
from parlor.kit.auth import data_dir_key
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
    development_keys(data_dir)
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
        # A configured NATS that is not there yet is waited for by the services (NOT_SERVING
        # until it answers); embedded servers are started and waited for here.
        with find_backends(["settings", "embedded"], data_dir, unchecked=["nats"]) as backends:
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
