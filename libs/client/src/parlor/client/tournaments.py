"""Tournaments: create, list, enter, leave, follow and export them (docs/tournaments.md)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from parlor.client.streams import resumed
from parlor.tournaments.v1 import tournaments_pb2 as pb
from parlor.tournaments.v1 import tournaments_pb2_grpc as pb_grpc

if TYPE_CHECKING:
    from parlor.client.client import ParlorClient


class TournamentClient:
    """``parlor.tournaments.v1.TournamentService`` (docs/tournaments.md)."""

    def __init__(self, client: ParlorClient) -> None:
        self.client = client
        self.stub = pb_grpc.TournamentServiceStub(client.channel)

    async def create(self, settings: pb.Settings) -> pb.CreateTournamentResponse:
        """Create one (the caller organises it); retried safely under one command id. An
        invitation-only one's code is in the answer, this once."""
        request = pb.CreateTournamentRequest(settings=settings, command_id=uuid.uuid4().hex)
        answer: pb.CreateTournamentResponse = await self.client.call(
            self.stub.CreateTournament, request, idempotent=True
        )
        return answer

    async def get(self, tournament_id: str) -> pb.Tournament:
        request = pb.GetTournamentRequest(tournament_id=tournament_id)
        answer = await self.client.call(self.stub.GetTournament, request, idempotent=True)
        tournament: pb.Tournament = answer.tournament
        return tournament

    async def list(self, status: pb.Status.ValueType = pb.STATUS_UNSPECIFIED) -> list[Any]:
        """Every open tournament of that status (``TournamentSummary``), page by page."""
        found: list[Any] = []
        token = ""
        while True:
            request = pb.ListTournamentsRequest(status=status, page_size=100, page_token=token)
            page = await self.client.call(self.stub.ListTournaments, request, idempotent=True)
            found.extend(page.tournaments)
            token = page.next_page_token
            if not token:
                return found

    async def join(self, tournament_id: str, invite_code: str = "", bot_level: str = "") -> str:
        """Enter (or, as its organiser, enter one of Parlor's bots); who was entered."""
        request = pb.JoinTournamentRequest(
            tournament_id=tournament_id, invite_code=invite_code, bot_level=bot_level
        )
        answer = await self.client.call(self.stub.JoinTournament, request)
        player: str = answer.player_id
        return player

    async def withdraw(self, tournament_id: str) -> None:
        request = pb.WithdrawFromTournamentRequest(tournament_id=tournament_id)
        await self.client.call(self.stub.WithdrawFromTournament, request)

    async def pause(self, tournament_id: str) -> None:
        request = pb.PauseInTournamentRequest(tournament_id=tournament_id)
        await self.client.call(self.stub.PauseInTournament, request)

    async def rejoin(self, tournament_id: str) -> None:
        request = pb.RejoinTournamentRequest(tournament_id=tournament_id)
        await self.client.call(self.stub.RejoinTournament, request)

    async def remove(self, tournament_id: str, player_id: str, reason: str = "") -> None:
        request = pb.RemoveFromTournamentRequest(
            tournament_id=tournament_id, player_id=player_id, reason=reason
        )
        await self.client.call(self.stub.RemoveFromTournament, request)

    async def start(self, tournament_id: str) -> None:
        request = pb.StartTournamentRequest(tournament_id=tournament_id)
        await self.client.call(self.stub.StartTournament, request)

    async def berserk(self, tournament_id: str, game_id: str) -> Any:
        """Go berserk in one of the tournament's games, before one's first move there: in the
        game itself (its type's ``BerserkGame``: ``GameClient.berserk``), which halves the
        clock; the tournament scores what the game records (docs/tournaments.md)."""
        game_type = (await self.get(tournament_id)).settings.game_type
        return await self.client.game(game_type).berserk(game_id)

    async def export(
        self, tournament_id: str, kind: pb.ExportFormat.ValueType = pb.EXPORT_FORMAT_JSON
    ) -> str:
        request = pb.ExportTournamentRequest(tournament_id=tournament_id, format=kind)
        answer = await self.client.call(self.stub.ExportTournament, request, idempotent=True)
        content: str = answer.content
        return content

    async def watch(self, tournament_id: str, after: int = 0) -> AsyncGenerator[Any, None]:
        """The tournament (``WatchTournamentResponse``): the whole of it first (after = 0),
        then each change, for good: reopened after a broken connection from the last
        position seen."""
        seen = after

        def open_stream() -> Any:
            request = pb.WatchTournamentRequest(tournament_id=tournament_id, after=seen)
            return self.stub.WatchTournament(request, metadata=self.client.metadata, timeout=None)

        async with aclosing(resumed(open_stream, self.client.retry)) as items:
            async for item in items:
                seen = item.position
                yield item
