"""Matchmaking: tickets, lobbies, and waiting for a ticket to be matched."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from parlor.client.streams import resumed
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

if TYPE_CHECKING:
    from parlor.client.client import ParlorClient

WAITING = pb.TICKET_STATUS_WAITING


class MatchmakingClient:
    """``parlor.matchmaking.v1.MatchmakingService``: a matched ticket names the game and seat."""

    def __init__(self, client: ParlorClient) -> None:
        self.client = client
        self.stub = pb_grpc.MatchmakingServiceStub(client.channel)

    async def create_ticket(
        self, game_type: str, min_players: int = 2, max_players: int = 2, **fields: Any
    ) -> pb.Ticket:
        """Queue for a game; ``fields`` are any other ``CreateTicketRequest`` fields
        (``bots_at_once=True, bot_level="easy"`` for a game against bots now,
        ``time_control=...``).

        Sent once (a retry could queue twice): after an error, look at your tickets first.
        """
        request = pb.CreateTicketRequest(
            game_type=game_type, min_players=min_players, max_players=max_players, **fields
        )
        response = await self.client.call(self.stub.CreateTicket, request, idempotent=False)
        return response.ticket

    async def list_game_types(self) -> list[pb.GameTypeInfo]:
        """The game types offered: seat ranges, bot levels, time controls, the game's service."""
        request = pb.ListGameTypesRequest()
        response = await self.client.call(self.stub.ListGameTypes, request, idempotent=True)
        return list(response.game_types)

    async def get_ticket(self, ticket_id: str) -> pb.Ticket:
        request = pb.GetTicketRequest(ticket_id=ticket_id)
        return (await self.client.call(self.stub.GetTicket, request, idempotent=True)).ticket

    async def cancel_ticket(self, ticket_id: str) -> pb.Ticket:
        """Leave the queue (cancelling twice is harmless, so it is retried)."""
        request = pb.CancelTicketRequest(ticket_id=ticket_id)
        return (await self.client.call(self.stub.CancelTicket, request, idempotent=True)).ticket

    async def create_lobby(
        self, game_type: str, min_players: int = 2, max_players: int = 2
    ) -> tuple[str, pb.Ticket]:
        """A private table: the invite code to share, and the host's own ticket."""
        request = pb.CreateLobbyRequest(
            game_type=game_type, min_players=min_players, max_players=max_players
        )
        response = await self.client.call(self.stub.CreateLobby, request, idempotent=False)
        return str(response.code), response.ticket

    async def join_lobby(self, code: str) -> pb.Ticket:
        request = pb.JoinLobbyRequest(code=code)
        return (await self.client.call(self.stub.JoinLobby, request, idempotent=False)).ticket

    async def watch_ticket(self, ticket_id: str) -> AsyncGenerator[pb.Ticket, None]:
        """The ticket now and at each change, until it leaves ``WAITING`` (matched or not).

        Reopened after an idle close or a broken connection (a repeat of the same state
        may then be seen).
        """

        def open_stream() -> Any:
            request = pb.WatchTicketRequest(ticket_id=ticket_id)
            return self.stub.WatchTicket(request, metadata=self.client.metadata, timeout=None)

        async with aclosing(resumed(open_stream, self.client.retry)) as items:
            async for item in items:
                yield item.ticket
                if item.ticket.status != WAITING:
                    return

    async def wait_for_match(self, ticket_id: str) -> pb.Ticket:
        """The ticket once it is no longer waiting: matched (``match_id``, ``seat``) or not."""
        last: pb.Ticket | None = None
        async for ticket in self.watch_ticket(ticket_id):
            last = ticket
        if last is None:
            last = await self.get_ticket(ticket_id)
        return last
