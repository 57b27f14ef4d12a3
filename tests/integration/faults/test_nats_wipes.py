"""NATS loses its store again and again under a running platform: every consumer comes back.

Issue 38: in 7 of 12 wipes a durable consumer was never made again (its fetches raised
``ServiceUnavailableError`` for ever), so games finished after the wipe were not scored and
matches made no game. Here a private ``nats-server`` is wiped (stopped, its store deleted,
started) ``WIPES`` times under matchmaking, Connect 4x4 and scoring in one process; after
each wipe two new players are matched, play a game to its end, and scoring rates it: every
match makes its game once, every game is scored once, and ``parlor.bus`` is SERVING again.
"""

from __future__ import annotations

import asyncio
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from kits.ports import restartable_port

from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.devinfra.embedded import NatsServer
from parlor.kit.server import BUS_HEALTH
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc
from parlor.telemetry.metrics import CONSUMER_RECOVERIES

pytestmark = [pytest.mark.integration, pytest.mark.slow]

WIPES = 10
CONSUMERS = ("scoring", "connect4x4-matches")
# Seat 0 builds a vertical line in column a (front) while seat 1 stacks column b.
WINNING_LINE = ["af", "bf", "af", "bf", "af", "bf", "af"]


def recoveries(consumer: str) -> float:
    """How often ``consumer`` subscribed again, whatever the failure."""
    return sum(
        sample.value
        for metric in CONSUMER_RECOVERIES.collect()
        for sample in metric.samples
        if sample.name.endswith("_total") and sample.labels["consumer"] == consumer
    )


async def eventually(probe: Any, seconds: float = 60.0) -> Any:
    """``probe()``'s first true answer, asked every 50 ms. A wait for a condition, not a
    measure of time (each wipe's time is printed): its deadline only ends a run that would
    hang, so it is long enough for a machine busy with other test workers."""
    deadline = time.monotonic() + seconds
    last: Exception | None = None
    while True:
        try:
            found = await probe()
        except Exception as exc:  # NOT_FOUND until the game is made, say
            found, last = None, exc
        else:
            last = None
        if found:
            return found
        assert time.monotonic() < deadline, f"gave up waiting for {probe.__name__} ({last!r})"
        await asyncio.sleep(0.05)


async def match_and_play(platform: Any, tag: str) -> tuple[str, list[str]]:
    """Two new players matched; their game (made from MatchFormed) played to a win."""
    players = [f"ann-{tag}", f"ben-{tag}"]
    async with platform.channel(players[0]) as a, platform.channel(players[1]) as b:
        channels = dict(zip(players, (a, b), strict=True))
        tickets = {
            p: (
                await mm_grpc.MatchmakingServiceStub(c).CreateTicket(
                    mm.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=2)
                )
            ).ticket
            for p, c in channels.items()
        }
        ann = mm_grpc.MatchmakingServiceStub(a)

        async def matched() -> mm.Ticket | None:
            got = await ann.GetTicket(mm.GetTicketRequest(ticket_id=tickets[players[0]].ticket_id))
            return got.ticket if got.ticket.status == mm.TICKET_STATUS_MATCHED else None

        ticket = await eventually(matched)
        game_id = ticket.match_id
        seats = [s.player_id for s in ticket.seats]
        games = {p: c4_grpc.Connect4x4ServiceStub(c) for p, c in channels.items()}
        await eventually(lambda: games[seats[0]].GetGame(c4.GetGameRequest(game_id=game_id)))
        for i, move in enumerate(WINNING_LINE):
            played = await games[seats[i % 2]].PlayMove(
                c4.PlayMoveRequest(game_id=game_id, move=move, command_id=f"m{i}"), timeout=10
            )
        assert played.game.status == c4.STATUS_WON
        scoring = sc_grpc.ScoringServiceStub(a)
        for p in players:

            async def rated(p: str = p) -> bool:
                got = await scoring.GetRating(
                    sc.GetRatingRequest(game_type="connect4x4", player_id=p)
                )
                return bool(got.rating.games >= 1)

            await eventually(rated)
    return game_id, players


async def test_every_consumer_comes_back_after_each_of_ten_nats_store_wipes(
    start_platform: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    own_database: str,
) -> None:
    # a database of its own: the relay fills this test's new JetStream stream from the store,
    # and from the session's (every earlier test's events) the first match's MatchFormed
    # reached the game service after the 60 s wait, beside other workers
    database_url = own_database
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    nats_server = NatsServer(tmp_path / "nats", port=restartable_port())
    nats_server.start()
    monkeypatch.setenv("PARLOR_NATS_URL", nats_server.url)
    monkeypatch.setenv("PARLOR_NATS_STREAM", f"WIPES_{uuid.uuid4().hex[:8]}")
    with psycopg.connect(database_url, autocommit=True) as conn:  # no one else's tickets
        if conn.execute("SELECT to_regclass('mm_tickets')").fetchone() != (None,):
            conn.execute("UPDATE mm_tickets SET status = 'cancelled' WHERE status = 'waiting'")
    played: list[tuple[str, list[str]]] = []
    took: list[float] = []
    try:
        async with start_platform("matchmaking", "scoring", "connect4x4") as platform:
            server = platform.server

            async def bus_serving() -> bool:
                return not (await server.check_health())[BUS_HEALTH]

            played.append(await match_and_play(platform, f"0-{uuid.uuid4().hex[:6]}"))
            await eventually(bus_serving)
            for wipe in range(1, WIPES + 1):
                before = {c: recoveries(c) for c in CONSUMERS}
                started = time.monotonic()
                nats_server.stop()  # back without its store: no stream, no consumers
                shutil.rmtree(nats_server.store_dir)
                nats_server.start()
                played.append(await match_and_play(platform, f"{wipe}-{uuid.uuid4().hex[:6]}"))
                await eventually(bus_serving)
                took.append(time.monotonic() - started)
                for consumer in CONSUMERS:
                    assert recoveries(consumer) > before[consumer], (
                        f"wipe {wipe}: {consumer} was not made again"
                    )
            # Everything republished after each wipe is redelivered: nothing changes twice.
            await asyncio.sleep(1.0)
            async with platform.channel("referee") as channel:
                scoring = sc_grpc.ScoringServiceStub(channel)
                for _, players in played:
                    for p in players:
                        got = await scoring.GetRating(
                            sc.GetRatingRequest(game_type="connect4x4", player_id=p)
                        )
                        assert got.rating.games == 1, f"{p}'s game scored once"
    finally:
        nats_server.stop()
    with psycopg.connect(database_url) as conn:
        for game_id, _ in played:
            created = conn.execute(
                "SELECT count(*) FROM events WHERE stream_id = %s AND type LIKE %s",
                (f"connect4x4-{game_id}", "%.GameCreated"),
            ).fetchone()
            assert created == (1,), f"the match {game_id} made its game once"
            scored = conn.execute(
                "SELECT count(*) FROM scoring_games WHERE stream_id = %s",
                (f"connect4x4-{game_id}",),
            ).fetchone()
            assert scored == (1,), f"the game {game_id} scored once"
    print(f"{WIPES} wipes: back and scored in {min(took):.2f}-{max(took):.2f} s each")
