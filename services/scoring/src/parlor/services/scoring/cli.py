"""``parlor-scoring-rebuild [URL]``: wipe scoring's tables and rebuild them from the event history.

The same rebuild as the admin-only ``Rebuild`` RPC, for operators with database
access (e.g. after changing the rating period). Live scoring may keep running: it
waits on scoring's lock while the rebuild runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from datetime import timedelta

from parlor.eventstore import PostgresEventStore
from parlor.kit.settings import load
from parlor.services.scoring.component import ScoringSettings
from parlor.services.scoring.migrate import migrate
from parlor.services.scoring.scorer import Rebuilt, Scorer


async def rebuild(url: str) -> Rebuilt:
    await migrate(url)
    settings = load(ScoringSettings)
    async with PostgresEventStore(url) as store:
        return await Scorer(store, timedelta(seconds=settings.period_seconds)).rebuild()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlor-scoring-rebuild", description=__doc__)
    parser.add_argument("url", nargs="?", default=os.environ.get("PARLOR_DATABASE_URL"))
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give a database URL or set PARLOR_DATABASE_URL")
    done = asyncio.run(rebuild(args.url))
    print(
        f"scoring rebuilt: {done.games} games up to position {done.head_position}", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
