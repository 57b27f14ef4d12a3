"""TournamentService: callers authorised for their own entry, decisions made by the rules."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from parlor.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from parlor.gametypes.catalogue import CataloguedGame
from parlor.gametypes.ids import check_command_id
from parlor.kit import auth
from parlor.kit.auth import Identity
from parlor.runtime.bells import GameBells
from parlor.services.tournament.games import bot_entrant
from parlor.services.tournament.settings import TournamentSettings
from parlor.services.tournament.tournaments import Tournaments, event_of, new_id
from parlor.services.tournament.view import (
    change_of,
    settings_of,
    standings_of,
    status_of,
    summary_of,
    tournament_of,
)
from parlor.tournamentrules import (
    INVITE,
    Create,
    Join,
    Pause,
    Rejoin,
    Remove,
    Start,
    Withdraw,
    export_json,
    export_text,
)
from parlor.tournamentrules.state import FINISHED, NEW
from parlor.tournaments.v1 import tournaments_pb2 as pb
from parlor.tournaments.v1 import tournaments_pb2_grpc

OPERATOR_ROLES = frozenset({"admin"})
"""Token roles that may remove entrants and start any tournament (operators)."""
BOT_ROLE = "bot"
"""A registered bot account's token role: it enters as a bot."""
INVITE_DIGEST = "invite_digest"
"""The metadata key of ``TournamentCreated`` keeping the invitation code's digest."""
PAGE = 20
READ_AT_ONCE = 256


def digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def is_operator(identity: Identity) -> bool:
    return bool(OPERATOR_ROLES & set(identity.roles))


def checked_id(tournament_id: str) -> str:
    if not tournament_id or not tournament_id.isascii() or not tournament_id.isalnum():
        raise InvalidArgument("name a tournament by its id", reason="BAD_TOURNAMENT")
    return tournament_id


class TournamentServicer(tournaments_pb2_grpc.TournamentServiceServicer):
    def __init__(
        self,
        tournaments: Tournaments,
        types: Mapping[str, CataloguedGame],
        settings: TournamentSettings,
        bells: GameBells,
        clock: Callable[[], int],
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.tournaments = tournaments
        self.types = dict(types)
        self.settings = settings
        self.bells = bells
        self.clock = clock
        self.wake = wake
        """Told when the driver may have something to do at once (a start)."""

    async def _existing(self, tournament_id: str) -> tuple[Any, int]:
        state, version = await self.tournaments.load(checked_id(tournament_id))
        if state.phase == NEW:
            raise NotFound("no such tournament", reason="TOURNAMENT_NOT_FOUND")
        return state, version

    async def _do(self, tournament_id: str, command: Callable[[Any], Any], actor: str) -> None:
        await self._existing(tournament_id)
        await self.tournaments.execute(tournament_id, command, actor)

    # -- creating -------------------------------------------------------------------------

    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Any
    ) -> pb.CreateTournamentResponse:
        me = auth.caller()
        rules = settings_of(request.settings, self.types)
        if rules.max_players > self.settings.max_players:
            raise ResourceExhausted(
                f"tournaments here take at most {self.settings.max_players} players",
                reason="TOURNAMENT_TOO_BIG",
                metadata={"limit": str(self.settings.max_players)},
            )
        tournament_id = new_id()
        if request.command_id:
            # a retry finds the tournament its first try created (the id is the digest of the
            # organiser and their command id: nobody else can name it before it exists)
            check_command_id(request.command_id)
            tournament_id = digest(f"{me.player_id}\n{request.command_id}")[:32]
        state, version = await self.tournaments.load(tournament_id)
        if state.phase != NEW:
            if state.organiser != me.player_id:
                raise InvalidArgument("use a fresh command id", reason="BAD_TOURNAMENT")
            # the code was shown once, with the first answer
            return pb.CreateTournamentResponse(
                tournament=tournament_of(tournament_id, state, version)
            )
        await self._check_open(me.player_id)
        code = secrets.token_urlsafe(12) if rules.access == INVITE else ""
        created = Create(rules, me.player_id, self.clock())
        await self.tournaments.execute(
            tournament_id,
            lambda current: created if current.phase == NEW else None,
            me.player_id,
            extra={INVITE_DIGEST: digest(code)} if code else None,
        )
        state, version = await self.tournaments.load(tournament_id)
        return pb.CreateTournamentResponse(
            tournament=tournament_of(tournament_id, state, version), invite_code=code
        )

    async def _check_open(self, organiser: str) -> None:
        held = [
            s
            for s, _ in (await self.tournaments.catalogue()).values()
            if s.phase not in (NEW, FINISHED) and s.organiser == organiser
        ]
        if len(held) >= self.settings.max_open_per_organiser:
            raise ResourceExhausted(
                f"you hold {len(held)} unfinished tournaments; finish one first",
                reason="TOO_MANY_TOURNAMENTS",
                metadata={"limit": str(self.settings.max_open_per_organiser)},
            )

    # -- reading --------------------------------------------------------------------------

    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: Any
    ) -> pb.GetTournamentResponse:
        auth.caller()
        state, version = await self._existing(request.tournament_id)
        return pb.GetTournamentResponse(
            tournament=tournament_of(request.tournament_id, state, version)
        )

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: Any
    ) -> pb.ListTournamentsResponse:
        auth.caller()
        offset = 0
        if request.page_token:
            if not request.page_token.isdigit() or len(request.page_token) > 9:
                raise InvalidArgument("use the page token a listing gave", reason="BAD_PAGE_TOKEN")
            offset = int(request.page_token)
        size = min(request.page_size or PAGE, 100)
        listed = sorted(
            (
                (state.created_at_ms, tournament_id, state)
                for tournament_id, (state, _) in (await self.tournaments.catalogue()).items()
                if state.phase != NEW
                and state.rules.access != INVITE
                and request.status in (pb.STATUS_UNSPECIFIED, status_of(state))
            ),
            key=lambda row: (-row[0], row[1]),
        )
        page = listed[offset : offset + size]
        more = offset + size < len(listed)
        return pb.ListTournamentsResponse(
            tournaments=[summary_of(t, s) for _, t, s in page],
            next_page_token=str(offset + size) if more else "",
        )

    async def ExportTournament(
        self, request: pb.ExportTournamentRequest, context: Any
    ) -> pb.ExportTournamentResponse:
        auth.caller()
        state, _ = await self._existing(request.tournament_id)
        if request.format == pb.EXPORT_FORMAT_TEXT:
            return pb.ExportTournamentResponse(
                content_type="text/plain; charset=utf-8", content=export_text(state)
            )
        return pb.ExportTournamentResponse(
            content_type="application/json",
            content=json.dumps(export_json(state), sort_keys=True, indent=1),
        )

    async def WatchTournament(
        self, request: pb.WatchTournamentRequest, context: Any
    ) -> AsyncIterator[pb.WatchTournamentResponse]:
        auth.caller()
        tournament_id = checked_id(request.tournament_id)
        state, version = await self._existing(tournament_id)
        position = request.after
        if position > version:
            raise InvalidArgument(
                "that position is not the tournament's yet", reason="BAD_POSITION"
            )
        if position == 0:
            yield pb.WatchTournamentResponse(
                current=tournament_of(tournament_id, state, version), position=version
            )
            position = version
        stream = f"tournament-{tournament_id}"
        while True:
            bell = self.bells.bell(tournament_id)
            events = await self.tournaments.store.read_stream(
                stream, position + 1, position + READ_AT_ONCE
            )
            if events:
                state, _ = await self.tournaments.load(tournament_id)
                changes = [change_of(e.version, event_of(e)) for e in events]
                position = events[-1].version
                yield pb.WatchTournamentResponse(
                    changes=changes,
                    standings=standings_of(state),
                    position=position,
                )
                if len(events) == READ_AT_ONCE:
                    continue
            elif not bell.is_set():
                await GameBells.wait(bell, self.settings.keepalive_seconds)
                if not bell.is_set():
                    yield pb.WatchTournamentResponse(position=position)  # keepalive
            bell.clear()

    # -- entering and leaving -------------------------------------------------------------

    async def JoinTournament(
        self, request: pb.JoinTournamentRequest, context: Any
    ) -> pb.JoinTournamentResponse:
        me = auth.caller()
        tournament_id = checked_id(request.tournament_id)
        state, _ = await self._existing(tournament_id)
        at = self.clock()
        if request.bot_level:
            if me.player_id != state.organiser and not is_operator(me):
                raise PermissionDenied(
                    "only the organiser enters Parlor's bots", reason="NOT_ORGANISER"
                )
            bots = self.types[state.rules.game_type].bots
            if request.bot_level not in bots:
                raise InvalidArgument(
                    f"bots of {state.rules.game_type} are {', '.join(dict.fromkeys(bots))}",
                    reason="UNKNOWN_BOT_LEVEL",
                )
            level = request.bot_level
            entered: list[str] = []

            def bot(current: Any) -> Any:
                prefix = bot_entrant(level, 0)[:-1]
                number = 1 + sum(1 for p in current.entrants if p.startswith(prefix))
                entered[:] = [bot_entrant(level, number)]
                return Join(entered[0], True, at, admitted=True)

            await self.tournaments.execute(tournament_id, bot, me.player_id)
            return pb.JoinTournamentResponse(player_id=entered[0])
        admitted = False
        if state.rules.access == INVITE:
            admitted = await self._admitted(tournament_id, request.invite_code)
        is_bot = BOT_ROLE in me.roles
        join = Join(me.player_id, is_bot, at, admitted=admitted)
        await self.tournaments.execute(tournament_id, lambda _: join, me.player_id)
        return pb.JoinTournamentResponse(player_id=me.player_id)

    async def _admitted(self, tournament_id: str, code: str) -> bool:
        first = await self.tournaments.store.read_stream(f"tournament-{tournament_id}", 1, 1)
        kept = first[0].metadata.extra.get(INVITE_DIGEST, "") if first else ""
        if not code or not kept or not hmac.compare_digest(kept, digest(code)):
            raise PermissionDenied(
                "this tournament is by invitation: join with its code", reason="BAD_INVITE_CODE"
            )
        return True

    async def _own(self, tournament_id: str, command: Callable[[str, int], Any]) -> None:
        """The caller's own entry: ``command(caller, now)``."""
        me = auth.caller().player_id
        decided = command(me, self.clock())
        await self._do(tournament_id, lambda _: decided, me)

    async def WithdrawFromTournament(
        self, request: pb.WithdrawFromTournamentRequest, context: Any
    ) -> pb.WithdrawFromTournamentResponse:
        await self._own(request.tournament_id, Withdraw)
        return pb.WithdrawFromTournamentResponse()

    async def PauseInTournament(
        self, request: pb.PauseInTournamentRequest, context: Any
    ) -> pb.PauseInTournamentResponse:
        await self._own(request.tournament_id, Pause)
        return pb.PauseInTournamentResponse()

    async def RejoinTournament(
        self, request: pb.RejoinTournamentRequest, context: Any
    ) -> pb.RejoinTournamentResponse:
        await self._own(request.tournament_id, Rejoin)
        self.wake()
        return pb.RejoinTournamentResponse()

    async def RemoveFromTournament(
        self, request: pb.RemoveFromTournamentRequest, context: Any
    ) -> pb.RemoveFromTournamentResponse:
        me = auth.caller()
        if not request.player_id:
            raise InvalidArgument("name the player to remove", reason="BAD_PLAYER")
        at = self.clock()
        remove = Remove(request.player_id, me.player_id, request.reason, at, is_operator(me))
        await self._do(request.tournament_id, lambda _: remove, me.player_id)
        return pb.RemoveFromTournamentResponse()

    async def StartTournament(
        self, request: pb.StartTournamentRequest, context: Any
    ) -> pb.StartTournamentResponse:
        me = auth.caller()
        start = Start(me.player_id, self.clock(), is_operator(me))
        await self._do(request.tournament_id, lambda _: start, me.player_id)
        self.wake()
        return pb.StartTournamentResponse()

    async def Berserk(self, request: pb.BerserkRequest, context: Any) -> pb.BerserkResponse:
        """Deprecated (kept on the wire): a berserk is the game's to record, since it halves
        the seat's clock there: ``BerserkGame`` on the game's service, whose ``SeatBerserked``
        the results score (``Driver.record``). Refused with where to go."""
        auth.caller()
        raise FailedPrecondition(
            "go berserk in the game itself: BerserkGame on the game's service, before your"
            " first move (docs/tournaments.md)",
            reason="BERSERK_IN_GAME",
        )
