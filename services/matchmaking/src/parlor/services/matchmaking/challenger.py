"""The gRPC face of challenges (``parlor.challenges.v1.ChallengeService``).

Everything a request names is checked here, before anything is stored: the game type and
its seats, the time control and the bots as a ticket's are (``games.py``), each invitee
resolved by handle or player id (an account must exist; a guest's id must look like one),
the seat choice, the expiry. The caller acts as themselves only (their token's subject);
what the challenge allows them is the decider's to say (``challenge.py``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from parlor.accounts import PLAYER_PREFIX
from parlor.admission.opengames import OpenGames, check_open_games
from parlor.admission.privacy import Privacy
from parlor.challenges.v1 import challenges_pb2 as pb
from parlor.challenges.v1 import challenges_pb2_grpc as pb_grpc
from parlor.common.v1 import common_pb2
from parlor.core.errors import FailedPrecondition, InvalidArgument, NotFound
from parlor.directory.listed import GameList
from parlor.eventstore import EventStore
from parlor.gametypes.catalogue import CataloguedGame
from parlor.gametypes.ids import check_id
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.kit import auth
from parlor.matchrecords.consent import claimed_match, rated, recorded_match
from parlor.services.matchmaking.accounts import Accounts
from parlor.services.matchmaking.challenge import (
    FIXED,
    PENDING,
    Challenge,
    ChallengeIssued,
)
from parlor.services.matchmaking.challengeconfig import checked_config
from parlor.services.matchmaking.challenges import Challenges
from parlor.services.matchmaking.challengeview import DECLINE, SEAT_CHOICE, challenge_pb
from parlor.services.matchmaking.games import (
    bot_level,
    game_type,
    time_control_json,
    time_control_of,
)
from parlor.services.matchmaking.playerwatch import PlayerWatch

SEATS_TAKEN = common_pb2.SeatsTaken.DESCRIPTOR.full_name
GAME_FINISHED = common_pb2.GameFinished.DESCRIPTOR.full_name
MIN_EXPIRY_SECONDS = 60
MAX_EXPIRY_SECONDS = 14 * 86_400
MAX_LISTED = 100
GUEST = re.compile(r"guest-[0-9a-f]{8,64}")
ACCOUNT = re.compile(PLAYER_PREFIX + r"[0-9a-f]{8,64}")


class ChallengeServicer(pb_grpc.ChallengeServiceServicer):
    def __init__(
        self,
        challenges: Challenges,
        accounts: Accounts,
        game_types: tuple[str, ...],
        expire_seconds: float = 86_400.0,
        open_games: Callable[[CataloguedGame], OpenGames | None] = lambda game: None,
        max_open_games: int = 0,
        directories: Callable[[CataloguedGame], GameList | None] = lambda game: None,
        keepalive_seconds: float = 15.0,
        declines: Callable[[Challenge], Awaitable[list[tuple[str, str]]]] | None = None,
    ) -> None:
        self.watch = PlayerWatch(challenges, keepalive_seconds)
        self.declines = declines
        """What bot invitees cannot take, declined as it is issued (``bots.BotScreen``)."""
        self.directories = directories
        """Where each game type's games are listed: a rematch lapses once one of its players
        is seen in a game started after the finished one."""
        self.challenges = challenges
        self.accounts = accounts
        self.game_types = game_types
        self.expire_seconds = expire_seconds
        self.open_games = open_games
        self.max_open_games = max_open_games

    async def player(self, named: str) -> str:
        """The player id a handle or id names; NOT_FOUND PLAYER_NOT_FOUND if none."""
        if GUEST.fullmatch(named):
            return named
        if ACCOUNT.fullmatch(named):
            account, _ = await self.accounts.load(named)
            if account.exists and not account.closed:
                return named
        elif named and not named.startswith(("bot:", PLAYER_PREFIX, "guest-")):
            try:
                holder = await self.accounts.handle_holder(named)
            except InvalidArgument as exc:
                raise InvalidArgument(
                    f"{named[:32]!r} is neither a handle nor a player id", reason="BAD_HANDLE"
                ) from exc
            if holder is not None:
                return holder
        elif not named:
            raise InvalidArgument("name a player by handle or id", reason="BAD_PLAYER")
        raise NotFound(f"no player {named[:32]!r}", reason="PLAYER_NOT_FOUND")

    def _wait(self, seconds: int) -> float:
        """How long a new challenge waits: as asked (0: the setting), or BAD_EXPIRY."""
        wait = float(seconds) or self.expire_seconds
        if not MIN_EXPIRY_SECONDS <= wait <= MAX_EXPIRY_SECONDS:
            raise InvalidArgument(
                f"a challenge waits {MIN_EXPIRY_SECONDS} s to {MAX_EXPIRY_SECONDS} s",
                reason="BAD_EXPIRY",
            )
        return wait

    async def _check_open_games(self, name: str) -> None:
        game = game_type(name, self.game_types)
        await check_open_games(self.open_games(game), auth.caller(), self.max_open_games, name)

    async def CreateChallenge(
        self, request: pb.CreateChallengeRequest, context: Any
    ) -> pb.CreateChallengeResponse:
        me = auth.caller()
        game = game_type(request.game_type, self.game_types)
        invitees: list[str] = []
        for named in request.invitees:
            player = await self.player(named)
            if player == me.player_id:
                raise InvalidArgument("you cannot challenge yourself", reason="SELF_CHALLENGE")
            if player in invitees:
                raise InvalidArgument(
                    f"{named[:32]!r} is invited twice", reason="DUPLICATE_INVITEE"
                )
            invitees.append(player)
        bots = []
        for name in request.bots:
            bot_level(game, name)  # UNKNOWN_BOT_LEVEL
            bots.append("bot:" + name.removeprefix("bot:"))
        seats = 1 + len(invitees) + request.open_seats + len(bots)
        if not invitees and not request.open_seats:
            raise InvalidArgument(
                "a challenge invites someone, or leaves an open seat", reason="BAD_PLAYER_COUNT"
            )
        if not game.min_seats <= seats <= game.max_seats:
            raise InvalidArgument(
                f"{game.name} takes {game.min_seats} to {game.max_seats} players;"
                f" this challenge seats {seats}",
                reason="BAD_PLAYER_COUNT",
            )
        if request.seat_choice not in SEAT_CHOICE:
            raise InvalidArgument(
                "seat_choice is first, second or random", reason="BAD_SEAT_CHOICE"
            )
        if request.rated and bots:
            raise InvalidArgument("a game with bots is not rated", reason="RATED_WITH_BOTS")
        control = time_control_of(game, request.time_control)
        config = checked_config(game, request.config, seats, len(bots))  # BAD_CONFIG
        wait = self._wait(request.expires_in_seconds)
        await self._check_open_games(game.name)

        def issued(challenge_id: str, now: float) -> ChallengeIssued:
            return ChallengeIssued(
                challenge_id=challenge_id,
                challenger=me.player_id,
                challenger_name=me.name or me.player_id,
                game_type=game.name,
                invitees=tuple(invitees),
                open_seats=request.open_seats,
                bots=tuple(bots),
                time_control=time_control_json(control),
                seat_choice=SEAT_CHOICE[request.seat_choice],
                rated=request.rated,
                created_at=now,
                expires_at=now + wait,
                config=config,
            )

        state = await self.challenges.issue(issued, declines=self.declines)
        return pb.CreateChallengeResponse(challenge=challenge_pb(state))

    async def _visible(self, challenge_id: str) -> Challenge:
        """The challenge, if the caller may see it (NOT_FOUND as for no challenge otherwise)."""
        state = await self.challenges.get(_checked(challenge_id))
        me = auth.caller()
        if not state.is_open and me.player_id not in state.people():
            raise NotFound("no such challenge", reason="CHALLENGE_NOT_FOUND")
        return state

    async def GetChallenge(
        self, request: pb.GetChallengeRequest, context: Any
    ) -> pb.GetChallengeResponse:
        return pb.GetChallengeResponse(
            challenge=challenge_pb(await self._visible(request.challenge_id))
        )

    async def AcceptChallenge(
        self, request: pb.AcceptChallengeRequest, context: Any
    ) -> pb.AcceptChallengeResponse:
        state = await self._visible(request.challenge_id)
        return pb.AcceptChallengeResponse(challenge=challenge_pb(await self._accept(state)))

    async def _accept(self, state: Challenge) -> Challenge:
        me = auth.caller()
        issued = state.issued
        assert issued is not None
        if me.player_id not in {p for p, _ in state.accepted}:
            await self._check_open_games(issued.game_type)
        await self._lapsed(state)
        return await self.challenges.accept(
            issued.challenge_id, me.player_id, me.name or me.player_id
        )

    async def _lapsed(self, state: Challenge) -> None:
        """A pending rematch one of whose players started another game since the finished one
        is recorded as lapsed (and then refused as such)."""
        issued = state.issued
        assert issued is not None
        if not issued.rematch_of or state.status != PENDING:
            return
        since = datetime.fromtimestamp(issued.created_at, UTC)
        for name in self.game_types:
            directory = self.directories(game_type(name, self.game_types))
            if directory is None:
                continue
            for player in state.people():
                if Seat(player).is_bot:
                    continue
                games = await directory.list(player_id=player, since=since, limit=2)
                if any(g.game_id != issued.rematch_of for g in games):
                    lapsed = await self.challenges.lapse(issued.challenge_id, player)
                    raise FailedPrecondition(
                        "a player of this rematch has started another game since",
                        reason="CHALLENGE_LAPSED",
                        metadata={"status": lapsed.status},
                    )

    async def OfferRematch(
        self, request: pb.OfferRematchRequest, context: Any
    ) -> pb.OfferRematchResponse:
        me = auth.caller()
        game = game_type(request.game_type, self.game_types)
        game_id = check_id(request.game_id, "game_id")
        events = await self.challenges.store.read_stream(f"{game.category}-{game_id}")
        seated = next((e for e in events if e.type == SEATS_TAKEN), None)
        taken = common_pb2.SeatsTaken.FromString(seated.data) if seated is not None else None
        seats = [(s.player_id, s.display_name or s.player_id) for s in taken.seats] if taken else []
        if seated is None or me.player_id not in {p for p, _ in seats}:
            raise NotFound("no such game", reason="GAME_NOT_FOUND")
        if not any(e.type == GAME_FINISHED for e in events):
            raise FailedPrecondition("the game has not finished", reason="GAME_NOT_FINISHED")
        rotated = seats[1:] + seats[:1]
        bots = tuple(p for p, _ in rotated if Seat(p).is_bot)
        invitees = tuple(p for p, _ in rotated if not Seat(p).is_bot and p != me.player_id)
        if not invitees:
            raise FailedPrecondition("a rematch needs another person", reason="NO_ONE_TO_REMATCH")
        control = (
            TimeControl.from_proto(taken.time_control)  # type: ignore[union-attr]
            if taken is not None and taken.HasField("time_control")
            else TimeControl()
        )
        was_rated = not bots and await _rated(self.challenges.store, seated, seats, game, game_id)
        config = await _config_of(self.challenges.store, seated, game, len(rotated), len(bots))
        wait = self._wait(request.expires_in_seconds)
        await self._check_open_games(game.name)

        def issued(challenge_id: str, now: float) -> ChallengeIssued:
            return ChallengeIssued(
                challenge_id=challenge_id,
                challenger=me.player_id,
                challenger_name=dict(seats).get(me.player_id) or me.name or me.player_id,
                game_type=game.name,
                invitees=invitees,
                open_seats=0,
                bots=bots,
                time_control=time_control_json(control),
                seat_choice=FIXED,
                rated=was_rated,
                created_at=now,
                expires_at=now + wait,
                rematch_of=game_id,
                seat_order=tuple(p for p, _ in rotated),
                private=Privacy.of(seated.metadata.extra).private,
                config=config,
            )

        state, new = await self.challenges.rematch(game.category, game_id, issued)
        if not new and state.pending_at(self.challenges.clock()):
            issued_first = state.issued
            assert issued_first is not None
            if me.player_id != issued_first.challenger:
                state = await self._accept(state)  # a second seat's offer accepts the first
        return pb.OfferRematchResponse(challenge=challenge_pb(state))

    async def DeclineChallenge(
        self, request: pb.DeclineChallengeRequest, context: Any
    ) -> pb.DeclineChallengeResponse:
        me = auth.caller()
        reason = DECLINE.get(request.reason)
        if reason is None:
            raise InvalidArgument("unknown decline reason", reason="BAD_DECLINE_REASON")
        state = await self._visible(request.challenge_id)
        assert state.issued is not None
        state = await self.challenges.decline(state.issued.challenge_id, me.player_id, reason)
        return pb.DeclineChallengeResponse(challenge=challenge_pb(state))

    async def CancelChallenge(
        self, request: pb.CancelChallengeRequest, context: Any
    ) -> pb.CancelChallengeResponse:
        me = auth.caller()
        state = await self._visible(request.challenge_id)
        assert state.issued is not None
        state = await self.challenges.cancel(state.issued.challenge_id, me.player_id)
        return pb.CancelChallengeResponse(challenge=challenge_pb(state))

    async def ListChallenges(
        self, request: pb.ListChallengesRequest, context: Any
    ) -> pb.ListChallengesResponse:
        me = auth.caller()
        now = self.challenges.clock()
        inbox = await self.challenges.inbox(me.player_id)
        blocked = await self.challenges.blocked_by(me.player_id)
        out = pb.ListChallengesResponse()
        for role, into in (("invitee", out.incoming), ("challenger", out.outgoing)):
            for notice in inbox.pending(role, now)[-MAX_LISTED:]:
                if notice.challenger in blocked:
                    continue
                state = await self.challenges.get(notice.challenge_id)
                if state.pending_at(now):
                    into.append(challenge_pb(state))
                elif state.status == PENDING:  # past its time: recorded now, its players told
                    await self.challenges.expire(notice.challenge_id)
        for challenge_id in (await self.challenges.open_board())[:MAX_LISTED]:
            state = await self.challenges.get(challenge_id)
            issued = state.issued
            if issued is None or not state.pending_at(now):
                continue
            if issued.challenger == me.player_id or issued.challenger in blocked:
                continue
            out.open.append(challenge_pb(state))
        return out

    async def WatchPlayer(
        self, request: pb.WatchPlayerRequest, context: Any
    ) -> AsyncIterator[pb.WatchPlayerResponse]:
        me = auth.caller()
        async for message in self.watch.watch(me.player_id, request.after):
            yield message

    async def BlockPlayer(
        self, request: pb.BlockPlayerRequest, context: Any
    ) -> pb.BlockPlayerResponse:
        me = auth.caller()
        other = await self.player(request.player)
        if other == me.player_id:
            raise InvalidArgument("you cannot block yourself", reason="BAD_PLAYER")
        await self.challenges.block(me.player_id, other, blocked=True)
        return pb.BlockPlayerResponse(player_id=other)

    async def UnblockPlayer(
        self, request: pb.UnblockPlayerRequest, context: Any
    ) -> pb.UnblockPlayerResponse:
        me = auth.caller()
        other = await self.player(request.player)
        await self.challenges.block(me.player_id, other, blocked=False)
        return pb.UnblockPlayerResponse(player_id=other)


async def _rated(
    store: EventStore,
    seated: Any,
    seats: list[tuple[str, str]],
    game: CataloguedGame,
    game_id: str,
) -> bool:
    """Whether the finished game was rated: agreed by its seats, and not an unrated match."""
    players = [p for p, _ in seats]
    extra, actor = seated.metadata.extra, seated.metadata.actor
    if not await rated(store, extra, actor, players, (game.category, game_id)):
        return False
    match_id = claimed_match(extra)
    match = await recorded_match(store, match_id) if match_id is not None else None
    return match is None or not match.unrated


async def _config_of(
    store: EventStore, seated: Any, game: CataloguedGame, seats: int, bots: int
) -> str:
    """The finished game's configuration, for its rematch: the one its match carried
    (``MatchFormed.config``: a challenge's, a rematch's), checked again as a challenge's
    (empty: the game was made with the defaults, or not from a match)."""
    match_id = claimed_match(seated.metadata.extra)
    match = await recorded_match(store, match_id) if match_id is not None else None
    if match is None or not match.config:
        return ""
    return checked_config(game, match.config, seats, bots)


def _checked(challenge_id: str) -> str:
    if not challenge_id:
        raise InvalidArgument("challenge_id is required", reason="BAD_CHALLENGE")
    return challenge_id
