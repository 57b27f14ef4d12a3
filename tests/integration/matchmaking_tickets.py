"""Following a matchmaking ticket in tests: its status now, or every change until it is done."""

from __future__ import annotations

from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc


async def watch_until_done(stub: pb_grpc.MatchmakingServiceStub, ticket_id: str) -> pb.Ticket:
    last = None
    async for update in stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket_id), timeout=20):
        last = update.ticket
    assert last is not None
    return last


async def status_of(stub: pb_grpc.MatchmakingServiceStub, ticket_id: str) -> int:
    return (await stub.GetTicket(pb.GetTicketRequest(ticket_id=ticket_id))).ticket.status
