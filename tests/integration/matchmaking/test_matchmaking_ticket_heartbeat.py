"""A player waiting alone is never left with a silent WatchTicket (issue 45).

The server ends a stream that sends nothing for PARLOR_STREAM_IDLE_SECONDS (60 s) with
DEADLINE_EXCEEDED STREAM_IDLE, and bots fill a lone ticket's table after
PARLOR_MATCHMAKING_BOT_FILL_SECONDS (60 s): a client waiting alone lost its stream just as
its game was made. Here both are shrunk in proportion (idle 1.5 s, bots after 4 s).
"""

from __future__ import annotations

import time

import grpc
import pytest

from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration]

BOT_FILL_SECONDS = 4.0


async def test_a_lone_ticket_hears_a_heartbeat_and_gets_its_bot_game_without_an_idle_end(
    start_platform, monkeypatch
) -> None:
    monkeypatch.setenv("PARLOR_STREAM_IDLE_SECONDS", "1.5")
    monkeypatch.setenv("PARLOR_MATCHMAKING_WATCH_HEARTBEAT_SECONDS", "0.4")
    monkeypatch.setenv("PARLOR_MATCHMAKING_BOT_FILL_SECONDS", str(BOT_FILL_SECONDS))
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "2")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.2")
    async with start_platform("matchmaking", "connect4x4") as platform:
        async with platform.channel("lone-ada") as ch:
            stub = pb_grpc.MatchmakingServiceStub(ch)
            ticket = (
                await stub.CreateTicket(
                    pb.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=2)
                )
            ).ticket
            fill_at = ticket.bots_fill_at.ToDatetime()
            waited = fill_at - ticket.created_at.ToDatetime()
            assert waited.total_seconds() == pytest.approx(BOT_FILL_SECONDS)
            seen: list[pb.Ticket] = []
            started = time.monotonic()
            try:
                async for response in stub.WatchTicket(
                    pb.WatchTicketRequest(ticket_id=ticket.ticket_id), timeout=60
                ):
                    seen.append(response.ticket)
                    if response.ticket.status != pb.TICKET_STATUS_WAITING:
                        break
            except grpc.aio.AioRpcError as error:  # what a client met before the heartbeat
                pytest.fail(f"the watch ended after {time.monotonic() - started:.1f} s: {error}")
    assert seen[-1].status == pb.TICKET_STATUS_MATCHED
    assert seen[-1].match_id
    assert any(seat.player_id.startswith("bot:") for seat in seen[-1].seats)
    assert not seen[-1].HasField("bots_fill_at")  # no longer waiting
    waiting = [t for t in seen if t.status == pb.TICKET_STATUS_WAITING]
    assert len(waiting) >= 3, "the waiting ticket was not sent again while nothing changed"
    assert all(t.bots_fill_at == ticket.bots_fill_at for t in waiting)
