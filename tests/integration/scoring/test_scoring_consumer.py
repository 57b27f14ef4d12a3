"""Scoring's consumer: each game once, in position order even when deliveries are not."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from parlor.common.v1 import common_pb2
from parlor.eventstore import (
    NO_STREAM,
    Inbox,
    Metadata,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
)
from parlor.gamehost.consent import CONSENT
from parlor.services.scoring.migrate import migrate
from parlor.services.scoring.scorer import Scorer
from parlor.services.scoring.sheet import GAME_FINISHED, SEATS_TAKEN

pytestmark = pytest.mark.integration

AGREED = Metadata(actor="service:tests", extra={CONSENT: "service"})


@dataclass
class Handed:
    """A delivery as the bus hands it over (ack/nak do nothing here)."""

    recorded: RecordedEvent
    headers: Mapping[str, str] = field(default_factory=dict)
    delivery_count: int = 1

    @property
    def subject(self) -> str:
        return "parlor.events.x.y.GameFinished"

    @property
    def data(self) -> bytes:
        return self.recorded.data

    @property
    def message_id(self) -> str:
        return self.recorded.message_id

    def event(self) -> RecordedEvent:
        return self.recorded

    async def ack(self) -> None:
        return None

    async def nak(self, delay: float | None = None) -> None:
        return None


@pytest.fixture
async def store(migrated: None, database_url: str) -> AsyncIterator[PostgresEventStore]:
    await migrate(database_url)
    async with PostgresEventStore(database_url) as s:
        yield s


async def play(
    store: PostgresEventStore, category: str, seats: list[tuple[str, int]]
) -> RecordedEvent:
    """A finished game's stream: SeatsTaken first, GameFinished last."""
    stream = f"{category}-{uuid.uuid4().hex[:8]}"
    taken = common_pb2.SeatsTaken(
        seats=[common_pb2.Seat(index=i, player_id=p) for i, (p, _) in enumerate(seats)]
    )
    finished = common_pb2.GameFinished(
        game_type=category,
        reason="LINE",
        results=[
            common_pb2.SeatResult(seat=common_pb2.Seat(index=i), rank=r, score=10 * r)
            for i, (_, r) in enumerate(seats)
        ],
    )
    await store.append(
        stream,
        [
            # as the game host records a game whose players agreed (here: a service seated them)
            NewEvent(SEATS_TAKEN, taken.SerializeToString(), metadata=AGREED),
            NewEvent("parlor.testgame.v1.Moved", b""),
            NewEvent(GAME_FINISHED, finished.SerializeToString()),
        ],
        NO_STREAM,
    )
    return (await store.read_stream(stream, 3, 3))[0]


def rows(database_url: str, category: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute(
            "SELECT * FROM scoring_ratings WHERE game_type = %s ORDER BY player_id", (category,)
        ).fetchall()


async def test_late_and_repeated_deliveries_give_the_same_numbers_as_a_rebuild(
    store: PostgresEventStore, database_url: str
) -> None:
    category = "sc" + uuid.uuid4().hex[:6]
    scorer = Scorer(store, timedelta(days=7))
    inbox = Inbox(store.engine, f"scoring-test-{category}")
    games = [
        await play(store, category, [("ann", 1), ("bob", 2)]),
        await play(store, category, [("bob", 1), ("cy", 2), ("ann", 2)]),
        await play(store, category, [("cy", 1), ("ann", 2), ("bot:random", 3)]),
        await play(store, category, [("ann", 1), ("bob", 1)]),
    ]
    order = [games[0], games[2], games[1], games[2], games[3], games[0]]
    fresh = [await inbox.handle(Handed(g), scorer.on_game_finished) for g in order]
    assert fresh == [True, True, True, False, True, False]
    live = rows(database_url, category)
    assert [(r[1], r[7]) for r in live] == [("ann", 4), ("bob", 3), ("cy", 2)]  # games played

    rebuilt = await scorer.rebuild()
    assert rebuilt.games >= len(games)
    assert rows(database_url, category) == live


async def test_rebuild_command_wipes_and_rebuilds_to_the_same_rows(
    store: PostgresEventStore, database_url: str
) -> None:
    category = "sc" + uuid.uuid4().hex[:6]
    scorer = Scorer(store, timedelta(days=7))
    inbox = Inbox(store.engine, f"scoring-test-{category}")
    for seats in ([("ann", 1), ("bob", 2)], [("bob", 1), ("ann", 2), ("cy", 3)]):
        await inbox.handle(Handed(await play(store, category, seats)), scorer.on_game_finished)
    live = rows(database_url, category)
    assert len(live) == 3
    command = shutil.which("parlor-scoring-rebuild", path=str(Path(sys.executable).parent))
    assert command is not None
    process = await asyncio.create_subprocess_exec(
        command, database_url, stderr=asyncio.subprocess.PIPE
    )
    _, err = await process.communicate()
    assert process.returncode == 0
    assert b"scoring rebuilt:" in err
    assert rows(database_url, category) == live


async def test_scoring_killed_between_its_commit_and_its_ack_rates_the_game_once(
    store: PostgresEventStore, database_url: str, nats_url: str, unique: str
) -> None:
    from parlor.eventstore import JetStreamBus, Subjects

    category = "sc" + uuid.uuid4().hex[:6]
    subjects = Subjects(prefix=f"t{unique}.events", stream=f"T{unique}")
    bus = await JetStreamBus.connect(nats_url, subjects)
    await bus.ensure_streams()
    script = Path(__file__).with_name("scoring_consumer.py")
    durable = f"scoring-kill-{unique}"
    base = [sys.executable, str(script), database_url, nats_url, subjects.prefix, subjects.stream]

    async def consumer(*extra: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *base, durable, *extra, stdout=asyncio.subprocess.PIPE
        )

    async def lines(proc: asyncio.subprocess.Process, want: int) -> list[dict[str, Any]]:
        assert proc.stdout is not None
        got: list[dict[str, Any]] = []
        while len(got) < want:
            line = await asyncio.wait_for(proc.stdout.readline(), 30)
            if not line:
                break
            got.append(json.loads(line))
        return got

    try:
        game = await play(store, category, [("ann", 1), ("bob", 2)])
        assert await bus.publish_event(game)

        first = await consumer("die-before-ack")
        said = await lines(first, 3)
        assert await asyncio.wait_for(first.wait(), 10) == -signal.SIGKILL
        assert said == [{"subscribed": True}, {"committed": game.message_id}]
        rated = rows(database_url, category)
        assert [(r[1], r[7]) for r in rated] == [("ann", 1), ("bob", 1)]  # committed, not acked

        second = await consumer()
        try:
            said = await lines(second, 2)  # the message comes again after ack_wait
        finally:
            second.kill()
            await second.wait()
        assert said == [{"subscribed": True}, {"message_id": game.message_id, "fresh": False}]
        assert rows(database_url, category) == rated, "the game is rated once"
        info = await bus.js.consumer_info(subjects.stream, durable)
        assert info.num_ack_pending == 0
        assert info.num_redelivered == 0  # acked by the second consumer: nothing left over
    finally:
        await bus.js.delete_stream(subjects.stream)
        await bus.close()
