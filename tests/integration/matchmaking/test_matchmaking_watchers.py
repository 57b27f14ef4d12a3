"""WatchTicket's watchers share one poll per process, on PostgreSQL and NATS."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import psycopg
import pytest

from parlor.kit import client
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]

WATCHERS = 10


async def far_apart(stub: Any, name: str, i: int) -> Any:
    """A waiting Upwords ticket for player ``name-i``, rated 1000 points from the others:
    no two of them meet within a test."""
    made = await stub.CreateTicket(
        pb.CreateTicketRequest(
            game_type="upwords",
            min_players=2,
            max_players=2,
            player_id=f"{name}-{i}",
            rating=1000.0 * i,
        )
    )
    return made.ticket


def matchmaking_of(platform: Any) -> Any:
    (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
    return component


async def test_many_watchers_are_read_by_one_poll_not_one_query_each(start_platform, monkeypatch):
    # Ratings 1000 points apart: no two tickets meet within the test (windows of 100 points
    # growing 10 a second), so every watcher waits on its ticket until it is cancelled.
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    monkeypatch.delenv("PARLOR_MATCHMAKING_BOT_FILL_SECONDS", raising=False)
    async with start_platform("matchmaking") as platform:
        token = platform.token("service:tests", roles=("service",))
        async with client.channel(platform.target, token) as ch:
            stub = pb_grpc.MatchmakingServiceStub(ch)
            made = [await far_apart(stub, "watched", i) for i in range(WATCHERS)]
            component = matchmaking_of(platform)
            tickets, board = component.extra["tickets"], component.extra["board"]
            gets: list[str] = []
            polled: list[int] = []
            returned: list[int] = []
            get, left_waiting = tickets.get, tickets.left_waiting

            async def counted_get(ticket_id: str) -> Any:
                gets.append(ticket_id)
                return await get(ticket_id)

            async def counted_many(ids: list[str]) -> Any:
                polled.append(len(ids))
                rows = await left_waiting(ids)
                returned.append(len(rows))
                return rows

            monkeypatch.setattr(tickets, "get", counted_get)
            monkeypatch.setattr(tickets, "left_waiting", counted_many)

            streams = [stub.WatchTicket(pb.WatchTicketRequest(ticket_id=t.ticket_id)) for t in made]
            firsts = [await s.read() for s in streams]
            assert [f.ticket.status for f in firsts] == [pb.TICKET_STATUS_WAITING] * WATCHERS
            assert board.watched == WATCHERS
            opened = len(gets)
            polled.clear()  # (polls while the watchers were still arriving read fewer)
            assert opened == WATCHERS  # each watch reads its ticket once, to check it is yours
            await asyncio.sleep(1.2)  # two ticks and a couple of dozen rounds
            assert len(gets) == opened  # no watcher read its ticket again by itself
            assert polled, "the board read the watched tickets"
            assert all(n == WATCHERS for n in polled)  # every poll read all ten at once
            assert not any(returned)  # and brought back none: they are all still waiting

            for t in made:
                await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=t.ticket_id))
            for s in streams:
                update = await s.read()
                assert update.ticket.status == pb.TICKET_STATUS_CANCELLED
                assert await s.read() is grpc.aio.EOF
            assert board.watched == 0  # the board forgets tickets nobody watches


async def test_a_ticket_is_rated_by_scoring_in_the_one_statement_that_creates_it(
    start_platform, monkeypatch, database_url
):
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    try:
        await _ticket_rated_by_scoring(start_platform, database_url)
    finally:
        # The rating was written by hand, not folded from events: it must not stay, for
        # scoring's tables are checked elsewhere against what the history rebuilds.
        await _forget_ratings(database_url)


async def _forget_ratings(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute(
            "DELETE FROM scoring_ratings WHERE player_id IN ('rated-1', 'newcomer-1')"
        )


async def _ticket_rated_by_scoring(start_platform: Any, database_url: str) -> None:
    async with start_platform("matchmaking", "scoring") as platform:
        await _forget_ratings(database_url)
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            await conn.execute(
                "INSERT INTO scoring_ratings (game_type, player_id, rating, rd, volatility,"
                " conservative, rated, games, wins, draws, losses, total_score, last_played)"
                " VALUES ('upwords', 'rated-1', 1875.5, 80, 0.06, 1715.5, true, 12, 8, 0, 4, 0,"
                " now())"
            )
        tickets = []
        for player in ("rated-1", "newcomer-1"):
            async with platform.channel(player) as ch:
                stub = pb_grpc.MatchmakingServiceStub(ch)
                made = await stub.CreateTicket(pb.CreateTicketRequest(game_type="upwords"))
                again = await stub.GetTicket(pb.GetTicketRequest(ticket_id=made.ticket.ticket_id))
                assert again.ticket == made.ticket  # the reply is the row as stored
                tickets.append(made.ticket)
                await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=made.ticket.ticket_id))
        assert [t.rating for t in tickets] == [1875.5, 1500.0]  # scoring's, a newcomer's


async def test_rounds_run_only_for_game_types_with_waiting_tickets(start_platform, monkeypatch):
    # An idle platform ran a round (a transaction of five statements) per game type and
    # replica several times a second; now one look finds the game types anyone waits for.
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    async with start_platform("matchmaking") as platform:
        rounds = matchmaking_of(platform).extra["rounds"]
        ran: list[str] = []
        run = rounds.run_timed  # the round loop's call (``run`` is the same round)

        async def counted_run(game_type: str) -> Any:
            ran.append(game_type)
            return await run(game_type)

        monkeypatch.setattr(rounds, "run_timed", counted_run)
        await asyncio.sleep(0.5)
        assert ran == [], "no round without a waiting ticket"
        async with platform.channel("lonely-1") as ch:
            stub = pb_grpc.MatchmakingServiceStub(ch)
            made = (
                await stub.CreateTicket(
                    pb.CreateTicketRequest(game_type="upwords", min_players=2, max_players=2)
                )
            ).ticket
            await asyncio.sleep(0.5)
            assert set(ran) == {"upwords"}
            # Its creation's round; no more while nothing changes (rounds come when tickets
            # change or time could change the outcome: test_matchmaking_rounds_when_changed).
            assert len(ran) >= 1, "a round for the waiting ticket"
            await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=made.ticket_id))


async def test_another_replicas_cancel_reaches_the_watch_within_the_tick(
    start_platform, monkeypatch
):
    """Two replicas: the watch on one, the cancel on the other (its own process and
    connections), so only the board's poll can bring it: within its half-second tick plus a
    little, as before the poll read only the tickets that left waiting."""
    monkeypatch.delenv("PARLOR_MATCHMAKING_BOT_FILL_SECONDS", raising=False)
    async with start_platform("matchmaking") as one, start_platform("matchmaking") as two:
        token = one.token("service:tests", roles=("service",))
        async with (
            client.channel(one.target, token) as here,
            client.channel(two.target, token) as there,
        ):
            watched = pb_grpc.MatchmakingServiceStub(here)
            for i in range(3):
                ticket = await far_apart(watched, "far", i)
                stream = watched.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id))
                assert (await stream.read()).ticket.status == pb.TICKET_STATUS_WAITING
                await asyncio.sleep(0.3 * i)  # anywhere in the board's tick
                start = asyncio.get_running_loop().time()
                await pb_grpc.MatchmakingServiceStub(there).CancelTicket(
                    pb.CancelTicketRequest(ticket_id=ticket.ticket_id)
                )
                update = await stream.read()
                took = asyncio.get_running_loop().time() - start
                assert update.ticket.status == pb.TICKET_STATUS_CANCELLED
                assert took < 0.5 + 0.3
