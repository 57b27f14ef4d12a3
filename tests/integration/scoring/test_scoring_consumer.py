"""Scoring's consumer: each game once, in position order even when deliveries are not.

Issue 15, class 1: scoring checks a game's consent record before it rates the game. The
record is written by a game service, so it is only a claim: a compromised upwords pod holds
``service:upwords`` and may seat anyone, and may claim any ``match:<id>``. Live scoring and
the rebuild alike rate a ``service`` game only if its actor is allow-listed, and a
``match:<id>`` game only if the store holds that match, for this game, with these seats.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
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
from parlor.eventstore.bus import MSG_ID, event_headers, redelivery_id
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import CONSENT, MATCH_FORMED, match_stream
from parlor.services.scoring.migrate import migrate
from parlor.services.scoring.scorer import Scorer
from parlor.services.scoring.sheet import GAME_FINISHED, SEATS_TAKEN
from parlor.telemetry.metrics import EVENTS_SET_ASIDE

pytestmark = pytest.mark.integration

AGREED = Metadata(actor="service:matchmaking", extra={CONSENT: "service"})


@dataclass
class Handed:
    """A delivery as the bus hands it over (ack/nak do nothing here)."""

    recorded: RecordedEvent
    headers: Mapping[str, str] = field(default_factory=dict)
    delivery_count: int = 1
    msg_id: str | None = None  # the publisher's Nats-Msg-Id, if not the event's own
    acks: int = 0

    @property
    def subject(self) -> str:
        return "parlor.events.x.y.GameFinished"

    @property
    def data(self) -> bytes:
        return self.recorded.data

    @property
    def message_id(self) -> str:
        return self.msg_id or self.recorded.message_id

    def event(self) -> RecordedEvent:
        return self.recorded

    async def ack(self) -> None:
        self.acks += 1

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


def pair_rows(database_url: str, category: str) -> list[tuple[Any, ...]]:
    """Scoring's record of who met whom, and when lately (what the repeat weights read)."""
    with psycopg.connect(database_url) as conn:
        return conn.execute(
            "SELECT * FROM scoring_pairs WHERE game_type = %s ORDER BY player_a, player_b",
            (category,),
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
    met = pair_rows(database_url, category)
    assert [(a, b, n) for _, a, b, n, _ in met] == [
        ("ann", "bob", 3),
        ("ann", "cy", 2),
        ("bob", "cy", 1),
    ]

    rebuilt = await scorer.rebuild()
    assert rebuilt.games >= len(games)
    assert rows(database_url, category) == live
    assert pair_rows(database_url, category) == met


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


# -- issue 15, class 1: the consent record is checked ----------------------------------


def seats(players: Sequence[str]) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(index=i, player_id=p) for i, p in enumerate(players)]


async def finished(
    store: PostgresEventStore, stream: str, players: Sequence[str], metadata: Metadata
) -> str:
    """A game played out: its creating event carries ``metadata`` as the game host wrote it."""
    result = common_pb2.GameFinished(
        reason="RESIGNATION",
        results=[
            common_pb2.SeatResult(seat=common_pb2.Seat(index=i), rank=i + 1)
            for i in range(len(players))
        ],
    )
    await store.append(
        stream,
        [
            NewEvent(
                SEATS_TAKEN,
                common_pb2.SeatsTaken(seats=seats(players)).SerializeToString(),
                metadata=metadata,
            ),
            NewEvent(GAME_FINISHED, result.SerializeToString()),
        ],
        NO_STREAM,
    )
    return stream


async def match(
    store: PostgresEventStore, match_id: str, game_type: str, players: Sequence[str]
) -> None:
    """What matchmaking records when a match forms."""
    formed = events_pb2.MatchFormed(match_id=match_id, game_type=game_type, seats=seats(players))
    await store.append(
        match_stream(match_id), [NewEvent(MATCH_FORMED, formed.SerializeToString())], NO_STREAM
    )


def scored(database_url: str, stream_id: str) -> bool:
    with psycopg.connect(database_url) as conn:
        found = conn.execute("SELECT 1 FROM scoring_games WHERE stream_id = %s", (stream_id,))
        return found.fetchone() is not None


def rated_players(database_url: str, players: Sequence[str]) -> list[str]:
    with psycopg.connect(database_url) as conn:
        found = conn.execute(
            "SELECT DISTINCT player_id FROM scoring_ratings WHERE player_id = ANY(%s)",
            (list(players),),
        )
        return sorted(r[0] for r in found.fetchall())


def names(*who: str) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{w}-{tag}" for w in who]


@pytest.fixture
async def own_store(backends: Any) -> AsyncIterator[tuple[PostgresEventStore, str]]:
    """A database of this test's own: the games it writes straight to the store are not
    real games (no GameCreated), and ``parlor verify`` over the session's database must
    not meet them."""
    from parlor.devinfra.backends import scratch_database
    from parlor.devinfra.scratch import scratch_name
    from parlor.eventstore.migrate import migrate_blocking

    with scratch_database(backends.database_url, scratch_name("test")) as url:
        migrate_blocking(url)
        await migrate(url)
        async with PostgresEventStore(url) as s:
            yield s, url


async def test_only_games_whose_consent_the_store_bears_out_are_rated(
    own_store: tuple[PostgresEventStore, str],
) -> None:
    store, database_url = own_store
    scorer = Scorer(store, timedelta(days=7))
    inbox = Inbox(store.engine, f"scoring-consent-{uuid.uuid4().hex[:8]}")
    ann, bob, cy, dee, eve, fay, gus, hal, ida, jo = names(
        "ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ida", "jo"
    )
    real, other = uuid.uuid4().hex, uuid.uuid4().hex
    await match(store, real, "upwords", [gus, hal])
    await match(store, other, "upwords", [ida, "bot:random"])

    # A compromised upwords pod, with its own service key, seats two people: not rated.
    by_pod = await finished(
        store,
        f"upwords-{uuid.uuid4().hex}",
        [ann, bob],
        Metadata(actor="service:upwords", extra={CONSENT: "service"}),
    )
    # It claims a match that never formed: not rated.
    fake = uuid.uuid4().hex
    by_fake_match = await finished(
        store,
        f"upwords-{fake}",
        [cy, dee],
        Metadata(actor="matchmaking", extra={CONSENT: f"match:{fake}"}),
    )
    # It claims a real match for a game of its own (other id), or seats others in it.
    by_borrowed_match = await finished(
        store,
        f"upwords-{uuid.uuid4().hex}",
        [gus, hal],
        Metadata(actor="matchmaking", extra={CONSENT: f"match:{real}"}),
    )
    by_reseated_match = await finished(
        store,
        f"upwords-{other}",
        [ida, jo],
        Metadata(actor="matchmaking", extra={CONSENT: f"match:{other}"}),
    )
    by_other_type = await finished(
        store,
        f"connect4x4-{real}",
        [gus, hal],
        Metadata(actor="matchmaking", extra={CONSENT: f"match:{real}"}),
    )
    # The real match's game, and a game the allow-listed service vouches for: rated.
    matched = await finished(
        store,
        f"upwords-{real}",
        [gus, hal],
        Metadata(actor="matchmaking", extra={CONSENT: f"match:{real}"}),
    )
    vouched = await finished(
        store,
        f"upwords-{uuid.uuid4().hex}",
        [eve, fay],
        Metadata(actor="service:matchmaking", extra={CONSENT: "service"}),
    )
    refused = [by_pod, by_fake_match, by_borrowed_match, by_reseated_match, by_other_type]

    for stream in [*refused, matched, vouched]:
        game = await store.read_stream(stream, 2, 2)
        assert await inbox.handle(Handed(game[0]), scorer.on_game_finished)
    for check in ("live", "rebuild"):
        assert [s for s in refused if scored(database_url, s)] == [], check
        assert scored(database_url, matched), check
        assert scored(database_url, vouched), check
        assert rated_players(database_url, [ann, bob, cy, dee, ida, jo]) == [], check
        assert rated_players(database_url, [gus, hal, eve, fay]) == sorted([gus, hal, eve, fay])
        await scorer.rebuild()


# -- a message is only a claim: it keeps no inbox id, and junk is not retried forever -------


def claim_of(real: RecordedEvent, **changes: Any) -> RecordedEvent:
    """A message as a forger writes it: like a relay's, with what they chose changed."""
    return dataclasses.replace(real, **changes)


async def test_a_forged_game_finished_taking_the_real_ones_message_id_does_not_stop_its_scoring(
    store: PostgresEventStore, database_url: str
) -> None:
    """The inbox remembers a message by the id its publisher wrote (``Nats-Msg-Id``). A
    forger who publishes, while a game is still being played, a GameFinished under the id
    the real one will have (``<stream>:<version>``, both public) was ignored as unconfirmed,
    but its id was kept, so the real GameFinished was then skipped as a duplicate and the
    game was never rated. So is one whose headers name another, real, game's event."""
    category = "sc" + uuid.uuid4().hex[:6]
    scorer = Scorer(store, timedelta(days=7))
    inbox = Inbox(store.engine, f"scoring-claims-{category}")
    ann, bob, cy, dee = names("ann", "bob", "cy", "dee")
    stream = f"{category}-{uuid.uuid4().hex[:8]}"
    taken = common_pb2.SeatsTaken(seats=seats([ann, bob]))
    await store.append(
        stream,
        [NewEvent(SEATS_TAKEN, taken.SerializeToString(), metadata=AGREED)],
        NO_STREAM,
    )
    won = common_pb2.GameFinished(
        reason="LINE",
        results=[
            common_pb2.SeatResult(seat=common_pb2.Seat(index=0), rank=1),
            common_pb2.SeatResult(seat=common_pb2.Seat(index=1), rank=2),
        ],
    )
    other = await play(store, category, [(cy, 1), (dee, 2)])  # a real game, finished
    ahead = claim_of(
        other,
        stream_id=stream,
        version=2,
        position=other.position + 1,
        data=won.SerializeToString(),
    )
    forged = [
        Handed(ahead),  # the id the real one will have, naming an event not (yet) stored
        Handed(other, msg_id=f"{stream}:2"),  # a real event, under the coming one's id
    ]
    assert [await inbox.handle(f, scorer.on_game_finished) for f in forged] == [False, False]
    assert [f.acks for f in forged] == [1, 1]  # handled for good: not delivered again
    assert not scored(database_url, other.stream_id)  # scored only under its own id

    await store.append(stream, [NewEvent(GAME_FINISHED, won.SerializeToString())], 1)
    real = (await store.read_stream(stream, 2, 2))[0]
    assert await inbox.handle(Handed(real), scorer.on_game_finished)
    assert scored(database_url, stream)
    assert rated_players(database_url, [ann, bob]) == sorted([ann, bob])
    # and the other game, under its own id (so the session's tables stay what a rebuild makes)
    assert await inbox.handle(Handed(other), scorer.on_game_finished)
    assert scored(database_url, other.stream_id)


async def test_a_game_finished_the_relay_sent_under_its_redelivery_id_is_rated_once(
    store: PostgresEventStore, database_url: str
) -> None:
    """When a forgery took a GameFinished's own id, the relay publishes the real one under
    ``redelivery_id`` (see parlor.eventstore.bus): scoring rates it under that id (it was
    set aside as ``MESSAGE_ID_MISMATCH``, so the game was never rated), and once only even
    if the forgery named the stored event exactly (handled, from the store, under the own
    id). Another event's redelivery id is still another's id."""
    category = "sc" + uuid.uuid4().hex[:6]
    scorer = Scorer(store, timedelta(days=7))
    inbox = Inbox(store.engine, f"scoring-redelivered-{category}")
    ann, bob = names("ann", "bob")
    game = await play(store, category, [(ann, 1), (bob, 2)])
    later = await play(store, category, [(ann, 2), (bob, 1)])
    elsewhere = Handed(game, msg_id=redelivery_id(later))
    assert not await inbox.handle(elsewhere, scorer.on_game_finished)
    assert not scored(database_url, game.stream_id)
    assert await inbox.handle(Handed(game, msg_id=redelivery_id(game)), scorer.on_game_finished)
    assert scored(database_url, game.stream_id)
    rated = rows(database_url, category)
    assert await inbox.handle(Handed(game), scorer.on_game_finished)  # its own id: fresh
    assert rows(database_url, category) == rated  # but the game is not rated twice
    assert await inbox.handle(Handed(later), scorer.on_game_finished)


async def test_junk_on_the_game_finished_subjects_is_set_aside_once_not_redelivered_forever(
    store: PostgresEventStore, database_url: str, nats_url: str, unique: str
) -> None:
    """Garbage headers, absurd numbers, another event type: each is acked once and counted,
    keeps no inbox id, and stalls nothing. Before, decoding raised, the inbox nak'ed it,
    and it came back every second for ever (an error logged each time), with
    JetStream's redeliveries going to it before new messages."""
    from parlor.eventstore import JetStreamBus, Subjects

    category = "sc" + uuid.uuid4().hex[:6]
    subjects = Subjects(prefix=f"t{unique}.events", stream=f"T{unique}")
    bus = await JetStreamBus.connect(nats_url, subjects)
    await bus.ensure_streams()
    scorer = Scorer(store, timedelta(days=7))
    durable = f"scoring-junk-{unique}"
    inbox = Inbox(store.engine, durable)
    stop = asyncio.Event()
    subject = f"{subjects.prefix}.{category}.x.GameFinished"
    game = await play(store, category, [("ann", 1), ("bob", 2)])
    real = event_headers(game)
    junk: list[dict[str, str]] = [
        {**real, "Parlor-Version": "three"},
        {**real, "Parlor-Version": "9" * 40},  # past any bigint
        {**real, "Parlor-Position": "-5"},
        {**real, "Parlor-Recorded-At": "yesterday"},
        {**real, "Parlor-Extra": "[1, 2]"},
        {**real, "Parlor-Stream": "no such.stream"},
        {k: v for k, v in real.items() if k != "Parlor-Position"},
        {**real, "Parlor-Event-Type": "parlor.testgame.v1.Moved"},
    ]
    before = EVENTS_SET_ASIDE.labels(durable, "MALFORMED_EVENT")._value.get()
    try:
        sub = await bus.subscribe(durable, f"{subjects.prefix}.*.*.GameFinished", ack_wait=2.0)
        for i, headers in enumerate(junk):
            assert await bus.publish(subject, b"\xff\x00junk", {**headers, MSG_ID: f"junk-{i}"})
        assert await bus.publish_event(game)  # and a real one after them
        running = asyncio.create_task(
            inbox.run(sub, scorer.on_game_finished, fetch_wait=0.2, retry_delay=0.2, stop=stop)
        )
        try:
            for _ in range(100):
                if scored(database_url, game.stream_id):
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)  # a nak'ed message would be back within this
        finally:
            stop.set()
            await asyncio.wait_for(running, 5)
        info = await bus.js.consumer_info(subjects.stream, durable)
    finally:
        await bus.js.delete_stream(subjects.stream)
        await bus.close()
    assert scored(database_url, game.stream_id)
    assert info.num_ack_pending == 0
    assert info.num_redelivered == 0
    assert [await inbox.seen(f"junk-{i}") for i in range(len(junk))] == [False] * len(junk)
    assert EVENTS_SET_ASIDE.labels(durable, "MALFORMED_EVENT")._value.get() == before + 7
