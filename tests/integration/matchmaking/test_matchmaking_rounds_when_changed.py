"""Matching rounds run when something changed, not every pause: on PostgreSQL and NATS.

A ticket waiting for a partner costs no statement until a ticket changes (here) or the time
reaches what could change the round (its bot fill), yet matches as promptly as before.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from parlor.kit import client
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]

GAME = "upwords"


def matchmaking_of(platform: Any) -> Any:
    (component,) = [c for c in platform.server.components if c.name == "matchmaking"]
    return component


async def _until(stub: Any, ticket_id: str, status: int, seconds: float) -> pb.Ticket:
    deadline = time.monotonic() + seconds
    while True:
        got = (await stub.GetTicket(pb.GetTicketRequest(ticket_id=ticket_id))).ticket
        if got.status == status or time.monotonic() > deadline:
            return got
        await asyncio.sleep(0.05)


async def test_a_waiting_ticket_runs_no_rounds_until_a_change_or_its_bot_fill(
    start_platform, monkeypatch, unique
):
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    monkeypatch.setenv("PARLOR_MATCHMAKING_IDLE_ROUND_SECONDS", "60")  # no sweep meanwhile
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    monkeypatch.setenv("PARLOR_MATCHMAKING_BOT_FILL_SECONDS", "2")
    async with start_platform("matchmaking") as platform:
        rounds = matchmaking_of(platform).extra["rounds"]
        ran: list[str] = []
        run_timed = rounds.run_timed

        async def counted(game_type: str) -> Any:
            ran.append(game_type)
            return await run_timed(game_type)

        monkeypatch.setattr(rounds, "run_timed", counted)
        token = platform.token("service:tests", roles=("service",))
        async with client.channel(platform.target, token) as ch:
            stub = pb_grpc.MatchmakingServiceStub(ch)

            def ask(player: str, rating: float) -> Any:
                return stub.CreateTicket(
                    pb.CreateTicketRequest(
                        game_type=GAME,
                        min_players=2,
                        max_players=2,
                        player_id=f"{player}-{unique}",
                        rating=rating,
                    )
                )

            # 1000 points from anyone: waits alone for its bot fill, 2 s after it was made.
            alone = (await ask("alone", 3000.0)).ticket
            await asyncio.sleep(1.0)  # twenty pauses: before, twenty rounds
            assert len(ran) <= 2, ran  # its own change's round (and at most one retry)
            before = len(ran)

            # Two people who fit: the first change's round, the second's matches them at once.
            first = (await ask("first", 1500.0)).ticket
            second = (await ask("second", 1510.0)).ticket
            matched = await _until(stub, second.ticket_id, pb.TICKET_STATUS_MATCHED, 5.0)
            assert matched.status == pb.TICKET_STATUS_MATCHED
            assert (await _until(stub, first.ticket_id, pb.TICKET_STATUS_MATCHED, 1.0)).status == (
                pb.TICKET_STATUS_MATCHED
            )
            assert len(ran) - before <= 3

            # Nothing rang since: the lone ticket's bot fill comes from its deadline alone.
            filled = await _until(stub, alone.ticket_id, pb.TICKET_STATUS_MATCHED, 20.0)
            assert filled.status == pb.TICKET_STATUS_MATCHED
            assert any(s.bot for s in filled.seats)
            made_at = alone.created_at.seconds + alone.created_at.nanos / 1e9
            # at its bot fill (2 s), not at the idle sweep (60 s); slack for a busy machine
            assert time.time() - made_at < 20.0
            assert len(ran) <= 8, ran
