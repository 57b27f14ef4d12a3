"""The gRPC face of matchmaking: tickets, lobbies, the watch stream and the game types.

A service caller (``Identity.is_service``) may ask for tickets for others and read any
ticket: the interceptor lets through only service tokens meant for matchmaking (their
``aud`` names it; ``parlor.kit.auth``), never a word game's, which is for the dictionary.

A ticket is a game to come: ``CreateTicket``, ``CreateLobby`` and ``JoinLobby`` refuse a
player who already holds ``max_open_games`` unfinished games of that type
(``RESOURCE_EXHAUSTED`` ``TOO_MANY_OPEN_GAMES``, counted by the game directory:
``parlor.admission.opengames``) before anything is stored; services are not capped. A match
formed after the player reached the cap meanwhile is still made into its game.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

from parlor.admission.opengames import OpenGames, check_open_games
from parlor.common.v1 import common_pb2
from parlor.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
)
from parlor.gametypes.catalogue import CataloguedGame
from parlor.gametypes.seats import shown_as_bot
from parlor.kit import auth
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from parlor.services.matchmaking.board import TicketBoard
from parlor.services.matchmaking.games import (
    GAME_TYPES,
    bot_level,
    bot_levels,
    check_counts,
    game_type,
    time_control_of,
)
from parlor.services.matchmaking.tickets import Lobbies, TicketRow, Tickets

STATUS = {
    "waiting": pb.TICKET_STATUS_WAITING,
    "matched": pb.TICKET_STATUS_MATCHED,
    "cancelled": pb.TICKET_STATUS_CANCELLED,
    "expired": pb.TICKET_STATUS_EXPIRED,
    "withdrawn": pb.TICKET_STATUS_WITHDRAWN,
    "lobby_closed": pb.TICKET_STATUS_LOBBY_CLOSED,
}
MAX_PLAYER_ID = 128


class MatchmakingServicer(pb_grpc.MatchmakingServiceServicer):
    def __init__(
        self,
        tickets: Tickets,
        lobbies: Lobbies,
        game_types: tuple[str, ...],
        board: TicketBoard,
        open_games: Callable[[CataloguedGame], OpenGames | None] = lambda game: None,
        max_open_games: int = 0,
        *,
        bot_fill_after: timedelta | None = None,
        heartbeat_seconds: float = 20.0,
        changed: Callable[[str], None] = lambda game_type: None,
    ) -> None:
        self.tickets = tickets
        self.changed = changed
        """Told a game type once one of its tickets was added or cancelled (committed): the
        rounds' schedule, which makes its round due."""
        self.bot_fill_after = bot_fill_after
        """The rounds' ``Policy.bot_fill_after``: told to a waiting ticket as ``bots_fill_at``."""
        self.heartbeat_seconds = heartbeat_seconds
        """How long ``WatchTicket`` lets a waiting ticket go unsent (a heartbeat after it)."""
        self.lobbies = lobbies
        self.game_types = game_types
        self.board = board
        self.open_games = open_games
        """Where a game type's unfinished games are counted (its directory; None: nowhere)."""
        self.max_open_games = max_open_games
        """``PARLOR_MAX_OPEN_GAMES_PER_PLAYER`` (0: no cap)."""

    async def check_open_games(self, game: CataloguedGame) -> None:
        """Refuse the caller a ticket for ``game`` if they hold the most unfinished games of
        it one player may (``TOO_MANY_OPEN_GAMES``); services pass."""
        await check_open_games(self.open_games(game), auth.caller(), self.max_open_games, game.name)

    def ticket_pb(self, ticket: TicketRow) -> pb.Ticket:
        out = pb.Ticket(
            ticket_id=ticket.ticket_id,
            player_id=ticket.player_id,
            game_type=ticket.game_type,
            min_players=ticket.min_players,
            max_players=ticket.max_players,
            rating=ticket.rating,
            lobby=ticket.lobby or "",
            status=STATUS[ticket.status],
            match_id=ticket.match_id or "",
            seat=ticket.seat or 0,
            seats=[
                common_pb2.Seat(index=i, player_id=p, display_name=n, bot=shown_as_bot(p))
                for i, (p, n) in enumerate(ticket.seats)
            ],
            time_control=ticket.time_control.to_proto(),
            bots_at_once=ticket.bots_at_once,
            bot_level=ticket.bot_level or "",
        )
        out.created_at.FromDatetime(ticket.created_at)
        out.expires_at.FromDatetime(self.tickets.expires_at(ticket))
        if ticket.status == "waiting":
            if ticket.bots_at_once:
                out.bots_fill_at.FromDatetime(ticket.created_at)
            elif self.bot_fill_after is not None:
                out.bots_fill_at.FromDatetime(ticket.created_at + self.bot_fill_after)
        return out

    async def _mine(self, ticket_id: str) -> TicketRow:
        if not ticket_id:
            raise InvalidArgument("ticket_id is required", reason="BAD_TICKET")
        me = auth.caller()
        ticket = await self.tickets.get(ticket_id)
        if ticket.player_id != me.player_id and not me.is_service:
            raise PermissionDenied("this ticket is not yours", reason="NOT_YOUR_TICKET")
        return ticket

    async def CreateTicket(
        self, request: pb.CreateTicketRequest, context: Any
    ) -> pb.CreateTicketResponse:
        me = auth.caller()
        game = game_type(request.game_type, self.game_types)
        low, high = check_counts(game, request.min_players, request.max_players)
        control = time_control_of(game, request.time_control)
        bot_level(game, request.bot_level)  # UNKNOWN_BOT_LEVEL before anything is stored
        level = request.bot_level.removeprefix("bot:") or None
        player, name = me.player_id, me.name
        rating: float | None = None
        if request.player_id or request.HasField("rating") or request.display_name:
            if not me.is_service:
                raise PermissionDenied(
                    "only services may ask for another player or set a rating",
                    reason="SERVICE_ONLY",
                )
            player = request.player_id or player
            if player.startswith("bot:") or len(player) > MAX_PLAYER_ID:
                raise InvalidArgument(
                    f"a player id has 1 to {MAX_PLAYER_ID} characters and is not a bot's",
                    reason="BAD_PLAYER",
                )
            name = request.display_name or player
            rating = request.rating if request.HasField("rating") else None
        await self.check_open_games(game)  # after what a caller may not ask at all
        ticket = await self.tickets.create(
            player,
            name or player,
            game.name,
            low,
            high,
            rating,
            time_control=control,
            bots_at_once=request.bots_at_once,
            bot_level=level,
            findable=request.findable,
        )
        self.changed(game.name)
        return pb.CreateTicketResponse(ticket=self.ticket_pb(ticket))

    async def GetTicket(self, request: pb.GetTicketRequest, context: Any) -> pb.GetTicketResponse:
        return pb.GetTicketResponse(ticket=self.ticket_pb(await self._mine(request.ticket_id)))

    async def CancelTicket(
        self, request: pb.CancelTicketRequest, context: Any
    ) -> pb.CancelTicketResponse:
        mine = await self._mine(request.ticket_id)
        # A lobby ticket is cancelled under the lobby's lock, as JoinLobby checks its host;
        # the host's cancel closes the lobby (its other tickets end), so the ring wakes
        # their watchers too.
        ticket = await self.tickets.cancel(request.ticket_id, mine.lobby)
        self.board.ring()
        self.changed(ticket.game_type)
        return pb.CancelTicketResponse(ticket=self.ticket_pb(ticket))

    async def WatchTicket(
        self, request: pb.WatchTicketRequest, context: Any
    ) -> AsyncIterator[pb.WatchTicketResponse]:
        """The ticket now, then each change until it is final (read by the board's poll);
        while nothing changes, the same ticket again every ``heartbeat_seconds``: a client
        waiting for bots to fill its table never sees a silent stream, which the server would
        end (``STREAM_IDLE``) just before its game was made."""
        ticket = await self._mine(request.ticket_id)
        with self.board.watching(ticket) as watch:
            while True:
                yield pb.WatchTicketResponse(ticket=self.ticket_pb(ticket))
                if ticket.terminal:
                    return
                with contextlib.suppress(TimeoutError):
                    ticket = await asyncio.wait_for(watch.next(), self.heartbeat_seconds)

    async def CreateLobby(
        self, request: pb.CreateLobbyRequest, context: Any
    ) -> pb.CreateLobbyResponse:
        me = auth.caller()
        game = game_type(request.game_type, self.game_types)
        low, high = check_counts(game, request.min_players, request.max_players)
        control = time_control_of(game, request.time_control)
        await self.check_open_games(game)
        # One transaction: a host who already waits with a ticket (TICKET_EXISTS) opens no
        # lobby, which no one could ever join or close.
        async with self.tickets.transaction() as conn:
            lobby = await self.lobbies.open(game.name, low, high, me.player_id, control, conn)
            ticket = await self.tickets.create(
                me.player_id,
                me.name,
                game.name,
                low,
                high,
                None,
                lobby.code,
                time_control=control,
                findable=request.findable,
                conn=conn,
            )
        self.changed(game.name)
        return pb.CreateLobbyResponse(code=lobby.code, ticket=self.ticket_pb(ticket))

    async def JoinLobby(self, request: pb.JoinLobbyRequest, context: Any) -> pb.JoinLobbyResponse:
        """A ticket in the lobby, written under the lobby's row lock in one transaction: a
        round that closes the lobby locks it too, so either it sees this ticket or this
        call sees the lobby closed (LOBBY_CLOSED, nothing written), never a ticket left
        waiting in a lobby whose game has started. A lobby takes at most its
        ``max_players`` waiting tickets (LOBBY_FULL), counted under the same lock, so
        concurrent joins cannot overfill it and leave someone waiting after its game forms.

        The caller's unfinished games are counted first, outside the transaction: the count
        takes a pooled connection of its own, and calls each holding one while waiting for
        a second could take every connection of the pool and wait for each other. Its
        refusal comes after the lobby's own (closed, full), as when it was counted inside."""
        me = auth.caller()
        refused: ResourceExhausted | None = None
        kind = await self.lobbies.game_type(request.code)  # a lobby's never changes
        if kind is not None:
            try:
                await self.check_open_games(GAME_TYPES[kind])
            except ResourceExhausted as exc:
                refused = exc
        async with self.tickets.transaction() as conn:
            lobby = await self.lobbies.lock(request.code, conn, me.player_id)
            if lobby.match_id is not None:
                raise FailedPrecondition(
                    "this lobby's game has already started", reason="LOBBY_CLOSED"
                )
            if not lobby.host_waiting and lobby.host_player_id != me.player_id:
                # A lobby waits for its host: without them no game could start there.
                raise FailedPrecondition(
                    "this lobby's host has left it; ask them for a new invite code",
                    reason="LOBBY_CLOSED",
                )
            if lobby.others >= lobby.max_players:
                # Not counting the caller's own ticket: a join retried is TICKET_EXISTS.
                raise FailedPrecondition(
                    f"this lobby is full: all {lobby.max_players} seats are taken",
                    reason="LOBBY_FULL",
                    metadata={"max_players": str(lobby.max_players)},
                )
            if refused is not None:
                raise refused
            ticket = await self.tickets.create(
                me.player_id,
                me.name,
                lobby.game_type,
                lobby.min_players,
                lobby.max_players,
                None,
                lobby.code,
                time_control=lobby.time_control,
                findable=request.findable,
                conn=conn,
            )
        self.changed(lobby.game_type)
        return pb.JoinLobbyResponse(ticket=self.ticket_pb(ticket))

    async def ListGameTypes(
        self, request: pb.ListGameTypesRequest, context: Any
    ) -> pb.ListGameTypesResponse:
        """Every game type offered, from its declaration: a new game edits nothing here."""
        return pb.ListGameTypesResponse(
            game_types=[
                pb.GameTypeInfo(
                    name=game.name,
                    min_players=game.min_seats,
                    max_players=game.max_seats,
                    bot_levels=bot_levels(game),
                    default_time_control=game.default_time_control.to_proto(),
                    time_controls=[c.to_proto() for c in game.time_controls],
                    service=game.service,
                )
                for name, game in sorted(GAME_TYPES.items())
                if name in self.game_types
            ]
        )
