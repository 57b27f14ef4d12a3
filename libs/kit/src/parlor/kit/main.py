"""``parlor-serve NAME...``: the one entrypoint that starts named services.

Services register themselves under the ``parlor.services`` entry-point group
(name → component factory); this command loads the named ones and serves them
on one gRPC server. The container image runs it with one name.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from importlib.metadata import EntryPoint, entry_points

from parlor.kit import logs, tracing
from parlor.kit.server import ComponentFactory, ServerSettings, serve
from parlor.kit.settings import SettingsError, load


def installed() -> dict[str, EntryPoint]:
    """Installed services by name; nothing is imported until a service is chosen."""
    return {ep.name: ep for ep in entry_points(group="parlor.services")}


def available() -> dict[str, ComponentFactory]:
    return {name: ep.load() for name, ep in installed().items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlor-serve", description=__doc__)
    parser.add_argument("services", nargs="+", help="service names, e.g. dictionary connect4x4")
    args = parser.parse_args(argv)
    known = installed()
    unknown = [name for name in args.services if name not in known]
    if unknown:
        print(
            f"parlor-serve: unknown service(s) {unknown}; installed: {sorted(known)}",
            file=sys.stderr,
        )
        return 2
    return run("+".join(args.services), [known[name].load() for name in args.services])


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
