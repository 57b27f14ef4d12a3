"""``parlor verify`` on PostgreSQL checks the clocks from the times the events record.

A timed Connect 4x4 game and a timed Upwords game, played through the game host on the
session's PostgreSQL with a hand-moved clock (kits/clock.py) and ended on time, verify
clean; copies with one move stamped after its deadline, or a timeout stamped before it
was due, are reported at that version (the copies are deleted afterwards, so later runs of
``parlor verify`` in this session are not affected).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from kits.clock import FakeNow
from sqlalchemy import text
from typer.testing import CliRunner, Result

from parlor.cli.main import app
from parlor.eventstore import NO_STREAM, Metadata, NewEvent, PostgresEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.deadlines import MemoryDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules import upwords as uw
from parlor.rules.upwords import tiles
from parlor.rules.upwords.moves import Placement
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.upwords.game import GAME as UW

pytestmark = pytest.mark.integration

SEATS = (Seat("ada"), Seat("bob"), Seat("cy"))


async def cli(*args: str) -> Result:
    runner = CliRunner()
    return await asyncio.to_thread(runner.invoke, app, list(args), catch_exceptions=False)


async def play_c4(host: GameHost[Any, Any, Any], now: FakeNow, game_id: str) -> None:
    create = c4.CreateGame(c4.Config())
    await host.create(game_id, OpenTable(SEATS[:2], create, TimeControl.per_move(30)))
    for seat, wait in ((0, 5), (1, 10), (0, 5)):
        now.advance(wait)
        await host.execute(
            game_id, c4.DropChecker(seat, seat, c4.Side.FRONT), actor=SEATS[seat].player_id
        )
    now.advance(31)  # bob runs out
    assert await Sweeper(host, host.deadlines).sweep() == 1


async def play_uw(host: GameHost[Any, Any, Any], now: FakeNow, game_id: str) -> None:
    bag = tiles.full_bag()
    config = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE)
    create = uw.CreateGame(config, ("ada", "bob", "cy"), bag, bag)
    await host.create(game_id, OpenTable(SEATS, create, TimeControl.per_move(30)))
    now.advance(10)
    aa = (Placement(4, 4, "A"), Placement(4, 5, "A"))
    await host.execute(game_id, uw.Play(0, aa, {}), actor="ada")
    sweeper = Sweeper(host, host.deadlines)
    for _ in range(2):  # bob, then cy, run out: ada is the last one in
        now.advance(31)
        assert await sweeper.sweep() == 1


async def copy(
    store: PostgresEventStore, stream: str, to: str, at: Callable[[int, str], str]
) -> None:
    """A copy of ``stream`` whose event at index i records the time ``at(i, time)``."""
    records = await store.read_stream(stream)
    new = []
    for i, r in enumerate(records):
        extra = dict(r.metadata.extra)
        extra["clock_at"] = at(i, extra["clock_at"])
        new.append(NewEvent(r.type, r.data, r.schema_version, Metadata(extra=extra)))
    await store.append(to, new, expected_version=NO_STREAM)


def plus(seconds: float) -> Callable[[str], str]:
    return lambda t: (datetime.fromisoformat(t) + timedelta(seconds=seconds)).isoformat()


@pytest.mark.parametrize(
    ("game", "play", "moved", "tamper", "reason"),
    [
        (C4, play_c4, c4.CheckerDropped, 21, "PAST_DEADLINE"),
        (C4, play_c4, c4.PlayerTimedOut, -10, "TIMEOUT_NOT_DUE"),
        (UW, play_uw, uw.WordPlayed, 21, "PAST_DEADLINE"),
        (UW, play_uw, uw.PlayerTimedOut, -10, "TIMEOUT_NOT_DUE"),
    ],
)
async def test_verify_checks_the_clocks_of_timed_games_in_the_store(
    migrated: None,
    database_url: str,
    game: Any,
    play: Any,
    moved: type,
    tamper: float,
    reason: str,
) -> None:
    store = PostgresEventStore(database_url)
    now = FakeNow()
    host = GameHost(
        game.category, game.decider, game.codec, store, now=now, deadlines=MemoryDeadlines()
    )
    game_id = f"timed-{uuid.uuid4().hex[:8]}"
    stream = f"{game.category}-{game_id}"
    copy_stream = f"{stream}-tampered"
    try:
        await play(host, now, game_id)
        events = [r.event for r in await host.history(game_id)]
        where = ["--game-type", game.name, "--database-url", database_url]
        clean = await cli("verify", *where, "--game-id", game_id)
        assert clean.exit_code == 0, clean.output
        assert "verified 1 games" in clean.output

        # The second of its kind for a drop (bob's, in time by 1 s before the tamper), the
        # first for a timeout; it and every later event move by ``tamper`` seconds.
        hits = [i for i, e in enumerate(events) if isinstance(e, moved)]
        bad = hits[1] if len(hits) > 1 and tamper > 0 else hits[0]
        await copy(store, stream, copy_stream, lambda i, t: plus(tamper)(t) if i >= bad else t)
        broken = await cli("verify", *where, "--game-id", f"{game_id}-tampered")
        assert broken.exit_code == 1, broken.output
        assert f"{copy_stream} at version {bad + 1}: {reason}" in broken.output
    finally:
        async with store.engine.begin() as conn:
            listed = await conn.scalar(text("SELECT to_regclass('game_directory')"))
            for table in ("events", "game_directory")[: 2 if listed else 1]:
                await conn.execute(
                    text(f"DELETE FROM {table} WHERE stream_id IN (:a, :b)"),
                    {"a": stream, "b": copy_stream},
                )
        await store.close()
