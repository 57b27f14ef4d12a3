"""``parlor-serve NAME...``: the one entrypoint that starts named services.

Services register themselves under the ``parlor.services`` entry-point group
(name → component factory); this command loads the named ones and serves them
on one gRPC server. The container image runs it with one name.

With ``--workers N`` (or ``PARLOR_WORKERS``) N worker processes share the port
(see ``parlor.kit.workers``); the default is one process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from parlor.kit import logs, tracing
from parlor.kit.auth import AuthSettings, generate_private_key
from parlor.kit.connections import worker_budget
from parlor.kit.server import ComponentFactory, ServerSettings, serve
from parlor.kit.settings import SettingsError, load
from parlor.kit.workers import die_with_parent, run_workers


def installed() -> dict[str, EntryPoint]:
    """Installed services by name; nothing is imported until a service is chosen."""
    return {ep.name: ep for ep in entry_points(group="parlor.services")}


def available() -> dict[str, ComponentFactory]:
    return {name: ep.load() for name, ep in installed().items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlor-serve", description=__doc__)
    parser.add_argument("services", nargs="+", help="service names, e.g. dictionary connect4x4")
    add_workers_argument(parser, "default: PARLOR_WORKERS, else 1")
    parser.add_argument("--worker-of", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    known = installed()
    unknown = [name for name in args.services if name not in known]
    if unknown:
        print(
            f"parlor-serve: unknown service(s) {unknown}; installed: {sorted(known)}",
            file=sys.stderr,
        )
        return 2
    if args.worker_of is not None:  # one of the workers a parent started
        die_with_parent(args.worker_of)
        return run("+".join(args.services), [known[name].load() for name in args.services])
    try:
        settings = load(ServerSettings)
    except SettingsError as exc:
        print(f"parlor-serve: {exc}", file=sys.stderr)
        return 2
    count = args.workers or settings.workers or 1
    if count > 1:
        try:
            return serve_workers(args.services, count, settings)
        except SettingsError as exc:
            print(f"parlor-serve: {exc}", file=sys.stderr)
            return 2
    return run("+".join(args.services), [known[name].load() for name in args.services])


def add_workers_argument(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--workers",
        type=_positive,
        default=None,
        metavar="N",
        help=f"worker processes sharing the gRPC port ({default})",
    )


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("needs at least 1")
    return value


def serve_workers(
    names: list[str],
    count: int,
    settings: ServerSettings,
    module: str = "parlor.kit.main",
    arguments: Callable[[int], list[str]] | None = None,
) -> int:
    """Serve ``names`` from ``count`` worker processes on one port until a signal.

    Worker i is ``python -m <module> --worker-of <this process> <arguments(i)>`` (``names``
    for ``parlor-serve``), which must serve in its own process on the port it is given.
    """
    env = dict(os.environ)
    # the server's connections to PostgreSQL, shared out (raises SettingsError if too few)
    env.update(worker_budget(count, env))
    logs.configure("+".join(names), settings.log_level, settings.log_format)
    keys = load(AuthSettings)
    if keys.dev_mode and not keys.private_key.strip() and not keys.public_keys.strip():
        # one throwaway key for all of them: a token one worker issued is good on the others
        env["PARLOR_JWT_PRIVATE_KEY"] = generate_private_key()
    if settings.log_format == "auto" and sys.stdout.isatty():
        env["PARLOR_LOG_FORMAT"] = "text"  # the workers write to a pipe, we to the terminal
    return run_workers(
        module,
        (lambda _: names) if arguments is None else arguments,
        count,
        settings.host,
        settings.port,
        settings.metrics_port,
        settings.grace_seconds,
        env,
    )


def run(name: str, factories: list[ComponentFactory]) -> int:
    """Serve components until a signal; a bad setting exits 2 with a message naming it."""
    try:
        settings = load(ServerSettings)
        logs.configure(name, settings.log_level, settings.log_format)
        tracing.configure(name)
        try:
            return asyncio.run(serve(settings, factories))
        finally:
            tracing.shutdown()
    except (SettingsError, ValueError) as exc:
        print(f"parlor-serve: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
