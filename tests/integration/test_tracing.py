"""One matchmade game is one trace, across matchmaking, NATS, Connect 4x4 and scoring.

Tracing is switched on with an in-memory span exporter; two players are matched, the
Connect 4x4 service creates the game from ``MatchFormed``, they play it to a win over gRPC,
and scoring rates the result from ``GameFinished``. One trace then holds the match's
append, the relay's publish, the game service's consumer, the game's creation, every move,
the publish of ``GameFinished`` and scoring's handling of it, each hop over NATS a parent
and child; the players' RPC spans are linked from the moves they made; and the stored
events carry the trace in their metadata.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from kits.scoring import eventually
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from prometheus_client import REGISTRY

from parlor import telemetry
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc

pytestmark = pytest.mark.integration

WINNING_LINE = ["af", "bf", "af", "bf", "af", "bf", "af"]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.install(provider)
    try:
        yield exporter
    finally:
        telemetry.uninstall()
        provider.shutdown()


COUNTED = {
    "moves": ("parlor_game_commands_total", {"game_type": "connect4x4", "outcome": "applied"}),
    "started": ("parlor_games_started_total", {"game_type": "connect4x4"}),
    "finished": ("parlor_games_finished_total", {"game_type": "connect4x4"}),
    "waits": ("parlor_matchmaking_wait_seconds_count", {"game_type": "connect4x4"}),
    "scored": ("parlor_consumer_handled_total", {"consumer": "scoring", "outcome": "ack"}),
}


def counts() -> dict[str, float]:
    return {k: REGISTRY.get_sample_value(n, labels) or 0.0 for k, (n, labels) in COUNTED.items()}


def attr(span: ReadableSpan, key: str) -> Any:
    return (span.attributes or {}).get(key)


def trace_hex(span: ReadableSpan) -> str:
    assert span.context is not None
    return format(span.context.trace_id, "032x")


async def test_a_matchmade_game_is_one_trace_from_the_match_to_the_rating(
    spans: InMemorySpanExporter, start_platform: Any, monkeypatch: Any, database_url: str
) -> None:
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    with psycopg.connect(database_url, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('mm_tickets')").fetchone() != (None,):
            conn.execute("UPDATE mm_tickets SET status = 'cancelled' WHERE status = 'waiting'")
    tag = uuid.uuid4().hex[:6]
    players = [f"tia-{tag}", f"tom-{tag}"]
    before = counts()
    async with start_platform("matchmaking", "scoring", "connect4x4") as platform:
        chans = {p: platform.channel(p) for p in players}
        try:
            matchmaking = {p: mm_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            games = {p: c4_grpc.Connect4x4ServiceStub(c) for p, c in chans.items()}
            scoring = sc_grpc.ScoringServiceStub(chans[players[0]])
            tickets = [
                (
                    await matchmaking[p].CreateTicket(
                        mm.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=2)
                    )
                ).ticket
                for p in players
            ]
            async for update in matchmaking[players[0]].WatchTicket(
                mm.WatchTicketRequest(ticket_id=tickets[0].ticket_id), timeout=20
            ):
                last = update.ticket
            assert last.status == mm.TICKET_STATUS_MATCHED
            match_id = last.match_id
            seats = [s.player_id for s in last.seats]
            assert sorted(seats) == sorted(players)
            await eventually(
                lambda: games[seats[0]].GetGame(c4.GetGameRequest(game_id=match_id)), 60
            )
            for i, move in enumerate(WINNING_LINE):
                played = await games[seats[i % 2]].PlayMove(
                    c4.PlayMoveRequest(game_id=match_id, move=move, command_id=f"t{i}")
                )
            assert played.game.status == c4.STATUS_WON

            async def rated() -> bool:
                got = await scoring.GetRating(
                    sc.GetRatingRequest(game_type="connect4x4", player_id=seats[0])
                )
                return got.rating.games == 1

            await eventually(rated, 60)
            await asyncio.sleep(0.2)  # scoring's consumer span ends just after its commit
        finally:
            for chan in chans.values():
                await chan.close()

    # The metrics beside the trace: the moves, the game, the waits, the scoring.
    after = counts()
    assert after["moves"] - before["moves"] >= 1 + len(WINNING_LINE)  # creation and moves
    assert after["started"] - before["started"] >= 1
    assert after["finished"] - before["finished"] >= 1
    assert after["waits"] - before["waits"] >= 2
    assert after["scored"] - before["scored"] >= 1

    finished = spans.get_finished_spans()
    (create,) = [
        s
        for s in finished
        if s.name == "connect4x4 create" and attr(s, "parlor.game_id") == match_id
    ]
    assert create.context is not None
    trace_id = create.context.trace_id
    game = [s for s in finished if s.context is not None and s.context.trace_id == trace_id]
    by_id = {s.context.span_id: s for s in game if s.context is not None}

    def parent_of(span: ReadableSpan) -> ReadableSpan:
        assert span.parent is not None, f"{span.name} has no parent"
        assert span.parent.span_id in by_id, f"{span.name}'s parent is not in the game's trace"
        return by_id[span.parent.span_id]

    # The match: matchmaking appended MatchFormed, its relay published it, Connect 4x4's
    # consumer handled it and created the game: parent and child at each hop over NATS.
    consumed = parent_of(create)
    assert consumed.name == "connect4x4-matches handle MatchFormed"
    assert consumed.kind == SpanKind.CONSUMER
    published = parent_of(consumed)
    assert published.name == "publish MatchFormed"
    assert published.kind == SpanKind.PRODUCER
    appended = parent_of(published)
    assert appended.name == "append matchmaking"
    assert attr(appended, "parlor.stream_id") == f"matchmaking-{match_id}"

    # The game's creation appended its first events inside the create span.
    names = [s.name for s in game]
    assert any(s.name == "append connect4x4" and parent_of(s) is create for s in game), names

    # Every move joined the game's trace, linked to the player's PlayMove RPC span.
    commands = [s for s in game if s.name == "connect4x4 command"]
    assert {attr(s, "parlor.command_id") for s in commands} >= {
        f"t{i}" for i in range(len(WINNING_LINE))
    }
    rpc_spans = {
        s.context.span_id: s
        for s in finished
        if s.kind == SpanKind.SERVER and s.name.endswith("/PlayMove") and s.context is not None
    }
    for command in commands:
        assert command.links, f"{attr(command, 'parlor.command_id')} is linked to no RPC"
        assert command.links[0].context.span_id in rpc_spans
        assert any(s.name == "connect4x4 decide" and parent_of(s) is command for s in game)

    # The winning move's GameFinished went out on NATS and scoring rated it, in this trace.
    last_move = next(
        s for s in commands if attr(s, "parlor.command_id") == f"t{len(WINNING_LINE) - 1}"
    )
    finish_publish = [s for s in game if s.name == "publish GameFinished"]
    assert len(finish_publish) == 1
    assert parent_of(parent_of(finish_publish[0])) is last_move  # append, then the move
    scored = [s for s in game if s.name == "scoring handle GameFinished"]
    assert len(scored) == 1
    assert scored[0].kind == SpanKind.CONSUMER
    assert parent_of(scored[0]) is finish_publish[0]

    # The trace is kept with the events: every stored event of the game carries it.
    store = PostgresEventStore(database_url)
    try:
        stored = await store.read_stream(f"connect4x4-{match_id}")
    finally:
        await store.close()
    assert stored
    for event in stored:
        traceparent = event.metadata.extra.get("traceparent", "")
        assert traceparent.split("-")[1] == trace_hex(create), event.type
