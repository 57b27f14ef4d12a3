"""Issue 15, classes 1-3 (consumers): the attacks, made against real platform pieces.

1. A player seats someone who never agreed: PERMISSION_DENIED SEAT_NOT_CONSENTED in every
   game service, nothing stored or published; a game in the store without every human's
   agreement is not rated.
2. A player squats a match's game id (their ticket's id, or the id their ticket shows):
   the match's id is random, the shown one is reserved (ALREADY_EXISTS GAME_ID_RESERVED),
   and a taken id fails the match over to a fresh one the tickets show.
3. Forged ``MatchFormed`` and ``GameFinished`` published straight onto NATS create no game
   and change no rating: consumers believe the event store, not the bus.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import grpc
import nats
import psycopg
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.core.decider import replay
from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.dictionary.v1 import dictionary_pb2_grpc as dpb_grpc
from parlor.eventstore import (
    NO_STREAM,
    JetStreamBus,
    Metadata,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
    Subjects,
    event_headers,
)
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import events_pb2
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from parlor.matchrecords.consent import CONSENT
from parlor.rules import connect4x4 as c4r
from parlor.services.connect4x4.game import Codec as C4Codec
from parlor.services.connect4x4.game import rules as c4_rules
from parlor.takefour.v1 import takefour_pb2 as tf
from parlor.takefour.v1 import takefour_pb2_grpc as tf_grpc
from parlor.upwords.v1 import upwords_pb2 as uw
from parlor.upwords.v1 import upwords_pb2_grpc as uw_grpc

pytestmark = pytest.mark.integration

SEATS_TAKEN = common_pb2.SeatsTaken.DESCRIPTOR.full_name
GAME_FINISHED = common_pb2.GameFinished.DESCRIPTOR.full_name
GAMES = {
    "connect4x4": (c4_grpc.Connect4x4ServiceStub, c4.CreateGameRequest),
    "upwords": (uw_grpc.UpwordsServiceStub, uw.CreateGameRequest),
    "takefour": (tf_grpc.TakeFourServiceStub, tf.CreateGameRequest),
}
# Seat 0 builds a vertical line in column a (front) while seat 1 stacks column b.
WINNING_LINE = ["af", "bf", "af", "bf", "af", "bf", "af"]


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


def tagged(*names: str) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{n}-{tag}" for n in names]


async def eventually(probe: Callable[[], Awaitable[Any]], seconds: float = 30.0) -> Any:
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        found = await probe()
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("gave up waiting")
        await asyncio.sleep(0.1)


def scoring_rows(database_url: str, players: list[str]) -> list[tuple[Any, ...]]:
    with psycopg.connect(database_url) as conn:
        ratings = conn.execute(
            "SELECT * FROM scoring_ratings WHERE player_id = ANY(%s)", (players,)
        ).fetchall()
        results = conn.execute(
            "SELECT * FROM scoring_results WHERE player_id = ANY(%s)", (players,)
        ).fetchall()
    return ratings + results


def scored(database_url: str, stream_id: str) -> bool:
    with psycopg.connect(database_url) as conn:
        found = conn.execute("SELECT 1 FROM scoring_games WHERE stream_id = %s", (stream_id,))
        return found.fetchone() is not None


async def published(nats_url: str, subject: str) -> int:
    """How many messages JetStream holds on ``subject`` (wildcards allowed)."""
    nc = await nats.connect(nats_url)
    try:
        info = await nc.jetstream().stream_info(
            os.environ["PARLOR_NATS_STREAM"], subjects_filter=subject
        )
        return sum((info.state.subjects or {}).values())
    finally:
        await nc.close()


def cancel_waiting(database_url: str) -> None:
    """Other tests' waiting tickets must not join this test's matches."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('mm_tickets')").fetchone() != (None,):
            conn.execute("UPDATE mm_tickets SET status = 'cancelled' WHERE status = 'waiting'")


@pytest.fixture(scope="module")
async def platform(start_platform: Any) -> AsyncIterator[Any]:
    """Every piece the attacks touch: the three games (and their dictionary), matchmaking,
    scoring; rounds every 50 ms, no waiting for fuller tables."""
    saved = {k: os.environ.get(k) for k in ("PARLOR_DICTIONARY_TARGET", *FAST)}
    os.environ.update(FAST)
    try:
        async with start_platform("dictionary") as dictionary:
            async with dictionary.channel("probe") as ch:
                await dpb_grpc.DictionaryServiceStub(ch).ListLexicons(dpb.ListLexiconsRequest())
            os.environ["PARLOR_DICTIONARY_TARGET"] = dictionary.target
            async with start_platform(
                "matchmaking", "scoring", "connect4x4", "upwords", "takefour"
            ) as started:
                yield started
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


FAST = {
    "PARLOR_MATCHMAKING_ROUND_SECONDS": "0.05",
    "PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS": "0",
}


@pytest.fixture
async def store(platform: Any, database_url: str) -> AsyncIterator[PostgresEventStore]:
    async with PostgresEventStore(database_url) as opened:
        yield opened


async def ask(platform: Any, player: str) -> mm.Ticket:
    """The player asks for a two-player Connect 4x4 game."""
    async with platform.channel(player) as ch:
        made = await mm_grpc.MatchmakingServiceStub(ch).CreateTicket(
            mm.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=2)
        )
        return made.ticket


async def watched(platform: Any, player: str, ticket_id: str) -> mm.Ticket:
    """The player's ticket once matched, as WatchTicket shows it last."""
    async with platform.channel(player) as ch:
        last = None
        async for update in mm_grpc.MatchmakingServiceStub(ch).WatchTicket(
            mm.WatchTicketRequest(ticket_id=ticket_id), timeout=30
        ):
            last = update.ticket
        assert last is not None
        assert last.status == mm.TICKET_STATUS_MATCHED
        return last


async def matched(platform: Any, *players: str) -> list[mm.Ticket]:
    """Each player asks for a game; their tickets once matched."""
    tickets = [await ask(platform, player) for player in players]
    return [await watched(platform, p, t.ticket_id) for p, t in zip(players, tickets, strict=True)]


async def game_exists(platform: Any, game_id: str, player: str) -> c4.Game | None:
    async with platform.channel(player) as ch:
        try:
            reply = await c4_grpc.Connect4x4ServiceStub(ch).GetGame(
                c4.GetGameRequest(game_id=game_id)
            )
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == grpc.StatusCode.NOT_FOUND
            return None
        return reply.game


async def play_out(platform: Any, game_id: str, game: c4.Game) -> None:
    """The two seated humans play the winning line to the end."""
    by_seat = [s.player_id for s in sorted(game.seats, key=lambda s: s.index)]
    for i, move in enumerate(WINNING_LINE):
        async with platform.channel(by_seat[i % 2]) as ch:
            await c4_grpc.Connect4x4ServiceStub(ch).PlayMove(
                c4.PlayMoveRequest(game_id=game_id, move=move, command_id=f"m{i}")
            )


# -- 1. seating other people ----------------------------------------------------------------


@pytest.mark.parametrize("game_type", sorted(GAMES))
async def test_a_player_cannot_seat_someone_who_did_not_agree(
    platform: Any, store: PostgresEventStore, nats_url: str, subject_prefix: str, game_type: str
) -> None:
    ada, bob = tagged("ada", "bob")
    stub_type, request_type = GAMES[game_type]
    game_id = uuid.uuid4().hex
    async with platform.channel(ada) as ch:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub_type(ch).CreateGame(request_type(game_id=game_id, seats=seats(ada, bob)))
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert reason_of(refused.value) == "SEAT_NOT_CONSENTED"
        assert bob in (refused.value.details() or "")
        assert await store.stream_version(f"{game_type}-{game_id}") == 0
        assert await published(nats_url, f"{subject_prefix}.{game_type}.{game_id}.>") == 0

        # Herself and bots need no one's agreement: the same call with a bot is a game.
        bot = "bot:random" if game_type != "takefour" else "bot:easy"
        await stub_type(ch).CreateGame(request_type(game_id=game_id, seats=seats(ada, bot)))
    first = (await store.read_stream(f"{game_type}-{game_id}", 1, 1))[0]
    assert first.type == SEATS_TAKEN
    taken = common_pb2.SeatsTaken.FromString(first.data)
    assert [s.player_id for s in taken.seats] == [ada, bot]
    assert first.metadata.extra[CONSENT] == "creator"


async def test_a_game_not_every_seated_human_agreed_to_is_not_rated(
    platform: Any, store: PostgresEventStore, database_url: str
) -> None:
    """A finished game in the store without the players' agreement (as an older platform
    could write it) is published by the relay like any other, and scoring skips it."""
    eve, fay, gus, hal = tagged("eve", "fay", "gus", "hal")

    async def finished(players: tuple[str, str], metadata: Metadata) -> str:
        """A whole Connect 4x4 game (created, then resigned), as the rules make it, so that
        ``parlor verify`` over the session's games finds it sound."""
        stream = f"connect4x4-{uuid.uuid4().hex}"
        table = c4_rules()
        seated = tuple(Seat(p, p.title()) for p in players)
        opened = table.decide(
            table.initial_state(), OpenTable(seated, c4r.CreateGame(c4r.Config()))
        )
        state = replay(table, opened)
        resigned = table.decide(state, c4r.Resign(1))
        codec = C4Codec()
        encoded = [codec.encode(event) for event in (*opened, *resigned)]
        await store.append(
            stream,
            [NewEvent(t, data, metadata=metadata) for t, data in encoded],
            NO_STREAM,
        )
        return stream

    forced = await finished((eve, fay), Metadata(actor=eve))  # eve seated fay, no consent
    agreed = await finished(
        (gus, hal), Metadata(actor="service:matchmaking", extra={CONSENT: "service"})
    )
    await eventually(lambda: asyncio.to_thread(scored, database_url, agreed))
    assert not scored(database_url, forced)
    assert scoring_rows(database_url, [eve, fay]) == []
    assert len(scoring_rows(database_url, [gus, hal])) == 4  # two ratings, two results


# -- 2. game ids a client can predict ----------------------------------------------------


async def test_a_ticket_owner_cannot_take_the_match_game_id(
    platform: Any, store: PostgresEventStore, database_url: str
) -> None:
    cancel_waiting(database_url)
    ann, ben = tagged("ann", "ben")
    async with platform.channel(ann) as ch:
        games = c4_grpc.Connect4x4ServiceStub(ch)
        ticket = await ask(platform, ann)
        # Before the match: a game under her own ticket's id, against a bot (hers to make).
        await games.CreateGame(
            c4.CreateGameRequest(game_id=ticket.ticket_id, seats=seats(ann, "bot:random"))
        )
        squatted = await store.stream_version(f"connect4x4-{ticket.ticket_id}")
        await ask(platform, ben)
        mine = await watched(platform, ann, ticket.ticket_id)
        game_id = mine.match_id
        assert game_id != ticket.ticket_id
        assert len(game_id) == 32
        int(game_id, 16)  # 128 random bits, hex

        # After it: the id her ticket shows is the match's, whether its game exists yet or not.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await games.CreateGame(
                c4.CreateGameRequest(game_id=game_id, seats=seats(ann, "bot:random"))
            )
        assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
        assert reason_of(refused.value) == "GAME_ID_RESERVED"

    game = await eventually(lambda: game_exists(platform, game_id, ben))
    assert sorted(s.player_id for s in game.seats) == sorted([ann, ben])
    first = (await store.read_stream(f"connect4x4-{game_id}", 1, 1))[0]
    assert first.metadata.actor == "matchmaking"
    assert first.metadata.extra[CONSENT] == f"match:{game_id}"
    assert await store.stream_version(f"connect4x4-{ticket.ticket_id}") == squatted


async def test_a_match_whose_id_is_taken_fails_over_and_the_tickets_say_where(
    platform: Any, store: PostgresEventStore, database_url: str
) -> None:
    cancel_waiting(database_url)
    cat, dan = tagged("cat", "dan")
    taken, fresh = uuid.uuid4().hex, uuid.uuid4().hex
    async with platform.channel(cat) as ch:
        await c4_grpc.Connect4x4ServiceStub(ch).CreateGame(
            c4.CreateGameRequest(game_id=taken, seats=seats(cat, "bot:random"))
        )
    before = await store.read_stream(f"connect4x4-{taken}")
    (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
    rounds = component.extra["rounds"]
    drawn, secure = iter([taken, fresh]), rounds.new_id
    rounds.new_id = lambda: next(drawn)  # the first id drawn names a stream already
    try:
        tickets = await matched(platform, cat, dan)
    finally:
        rounds.new_id = secure
    assert [t.match_id for t in tickets] == [fresh, fresh]
    async with platform.channel(dan) as ch:  # GetTicket says the same
        again = await mm_grpc.MatchmakingServiceStub(ch).GetTicket(
            mm.GetTicketRequest(ticket_id=tickets[1].ticket_id)
        )
        assert again.ticket.match_id == fresh
    game = await eventually(lambda: game_exists(platform, fresh, dan))
    assert sorted(s.player_id for s in game.seats) == sorted([cat, dan])
    assert await store.read_stream(f"connect4x4-{taken}") == before


# -- 3. the bus is not believed --------------------------------------------------------------


def forged(stream_id: str, event_type: str, data: bytes, version: int, position: int) -> Any:
    """What an attacker publishes: a well-formed message with headers like the relay's."""
    return RecordedEvent(
        stream_id=stream_id,
        version=version,
        position=position,
        type=event_type,
        data=data,
        schema_version=1,
        metadata=Metadata(actor="matchmaking"),
        recorded_at=datetime.now(UTC),
    )


async def publish_forged(nats_url: str, subject_prefix: str, event: RecordedEvent) -> None:
    bus = await JetStreamBus.connect(
        nats_url, Subjects(prefix=subject_prefix, stream=os.environ["PARLOR_NATS_STREAM"])
    )
    try:
        assert await bus.publish(
            bus.subjects.for_event(event), event.data, event_headers(event), uuid.uuid4().hex
        )
    finally:
        await bus.close()


async def test_a_forged_match_formed_creates_no_game(
    platform: Any, store: PostgresEventStore, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    cancel_waiting(database_url)
    eve, vic, ivy, joe = tagged("eve", "vic", "ivy", "joe")
    match_id = uuid.uuid4().hex
    claim = events_pb2.MatchFormed(match_id=match_id, game_type="connect4x4", seats=seats(vic, eve))
    head = await store.head_position()
    await publish_forged(
        nats_url,
        subject_prefix,
        forged(
            f"matchmaking-{match_id}",
            claim.DESCRIPTOR.full_name,
            claim.SerializeToString(),
            1,
            head + 1,
        ),
    )
    # A real match afterwards: once its game exists, the forged message was handled first.
    real = (await matched(platform, ivy, joe))[0]
    await eventually(lambda: game_exists(platform, real.match_id, ivy))
    assert await store.stream_version(f"connect4x4-{match_id}") == 0
    assert await store.stream_version(f"matchmaking-{match_id}") == 0
    assert await published(nats_url, f"{subject_prefix}.connect4x4.{match_id}.>") == 0


async def test_a_forged_game_finished_changes_no_rating(
    platform: Any, store: PostgresEventStore, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    cancel_waiting(database_url)
    kim, lee, max_, ned = tagged("kim", "lee", "max", "ned")
    running = (await matched(platform, kim, lee))[0].match_id
    game = await eventually(lambda: game_exists(platform, running, kim))
    assert game.status == c4.STATUS_IN_PROGRESS
    stream = f"connect4x4-{running}"
    first = (await store.read_stream(stream, 1, 1))[0]
    won = common_pb2.GameFinished(
        game_type="connect4x4",
        reason="FOUR_IN_A_LINE",
        results=[
            common_pb2.SeatResult(
                seat=common_pb2.Seat(index=s.index), rank=1 if s.player_id == kim else 2
            )
            for s in game.seats
        ],
    ).SerializeToString()
    version = await store.stream_version(stream)
    for claim in (
        forged(stream, GAME_FINISHED, won, version + 1, await store.head_position() + 1),
        # an event the store holds, claimed to be something else
        forged(stream, GAME_FINISHED, won, first.version, first.position),
    ):
        await publish_forged(nats_url, subject_prefix, claim)

    # A real game finished afterwards: once scoring has it, the forged ones were handled first.
    other = (await matched(platform, max_, ned))[0].match_id
    await play_out(platform, other, await eventually(lambda: game_exists(platform, other, max_)))
    await eventually(lambda: asyncio.to_thread(scored, database_url, f"connect4x4-{other}"))
    assert not scored(database_url, stream)
    assert scoring_rows(database_url, [kim, lee]) == []
    assert await store.stream_version(stream) == version  # and the game itself goes on


@pytest.mark.parametrize("game_type", sorted(GAMES))
async def test_another_player_retrying_a_create_id_is_refused(
    platform: Any, store: PostgresEventStore, game_type: str
) -> None:
    """A create's command id is ada's: bob sending it again (same game id) learns nothing
    of her game, in every game service, and nothing is appended."""
    ada, bob = tagged("ada", "bob")
    stub_type, request_type = GAMES[game_type]
    game_id = uuid.uuid4().hex
    bot = "bot:random" if game_type != "takefour" else "bot:easy"
    async with platform.channel(ada) as ch:
        await stub_type(ch).CreateGame(
            request_type(game_id=game_id, seats=seats(ada, bot), command_id="create-1")
        )
    async with platform.channel(bob) as ch:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub_type(ch).CreateGame(
                request_type(game_id=game_id, seats=seats(bob, bot), command_id="create-1")
            )
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert reason_of(refused.value) == "COMMAND_ID_TAKEN"
    assert ada not in (refused.value.details() or "")
    # nothing of bob's was appended (the bot may go on moving meanwhile)
    stored = await store.read_stream(f"{game_type}-{game_id}", 1)
    assert stored[0].metadata.actor == ada
    assert all(r.metadata.actor != bob for r in stored)
