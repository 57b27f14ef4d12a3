"""The matchmaker's bots: ``SeekBot`` gives a person, or a bot, a game against a bot account.

The pool is every bot that offered itself (``Accepts.matchmaking``, ``bots.POOL``); each
is loaded to see whether it is available now (not disabled, not marked unavailable since
it last declared: ``BotAccount.available``), accepts the game (``botaccount.screen``), is
under its ``max_games`` (the game directories' count, at most a second old) and is rated
within the window asked for (``botaccount.choose``). The chosen bot is challenged on the
caller's behalf and its seat taken for it in the same call (it declared that it takes such
games), so the match forms at once and reaches the bot on its stream like any other game.

Bots' rated pool is kept apart from people's unless the operator joins them
(``PARLOR_BOTS_RATED_WITH_PEOPLE``): a person gets only casual games against bots. A bot
asking for a bot opponent spends its owner's budget (``PARLOR_BOTS_GAMES_PER_OWNER_PER_HOUR``,
counted in ``botbudget-<owner>``). See docs/bots.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from parlor.bots.v1 import bots_pb2 as bpb
from parlor.core.errors import FailedPrecondition, InvalidArgument
from parlor.kit import auth
from parlor.rating import INITIAL_RATING
from parlor.services.matchmaking import botaccount as rules
from parlor.services.matchmaking.botaccount import BotAccount, Candidate
from parlor.services.matchmaking.bots import BOT_ROLE, Bots, BotScreen, bot_message, is_bot_id
from parlor.services.matchmaking.challenge import DECLINED, RANDOM, Challenge, ChallengeIssued
from parlor.services.matchmaking.challenges import Challenges
from parlor.services.matchmaking.challengeview import challenge_pb
from parlor.services.matchmaking.games import game_type, time_control_json, time_control_of

Ratings = Callable[[str, str], Awaitable[float]]
"""Scoring's rating of a player for a game type (``Tickets.rating``)."""
SEEK_EXPIRY_SECONDS = 60.0
"""How long a seek's challenge would wait (it never does: the bot's seat is taken at once)."""


async def no_ratings(player_id: str, game: str) -> float:
    return INITIAL_RATING


async def _uncapped(game: str) -> None:
    return None


class BotMatcher:
    def __init__(
        self,
        bots: Bots,
        challenges: Challenges,
        screen: BotScreen,
        game_types: tuple[str, ...],
        *,
        ratings: Ratings = no_ratings,
        per_owner_per_hour: int = 120,
        rated_with_people: bool = False,
        check_open_games: Callable[[str], Awaitable[None]] = _uncapped,
    ) -> None:
        self.check_open_games = check_open_games
        """The caller's cap of unfinished games of a type (``ChallengeServicer``'s check)."""
        self.bots = bots
        self.challenges = challenges
        self.screen = screen
        self.game_types = game_types
        self.ratings = ratings
        self.per_owner_per_hour = per_owner_per_hour
        self.rated_with_people = rated_with_people

    async def _candidate(self, bot_id: str, game: str) -> Candidate | None:
        bot, _ = await self.bots.load(bot_id)
        if not bot.available or bot.accepts is None:
            return None
        playing = await self.screen.playing(bot_id, bot.accepts.max_games)
        return Candidate(bot, playing, await self.ratings(bot_id, game))

    async def answer(self, request: bpb.SeekBotRequest) -> bpb.SeekBotResponse:
        """``BotService/SeekBot``."""
        matched, bot = await self.seek(request)
        return bpb.SeekBotResponse(challenge=challenge_pb(matched), bot=bot_message(bot))

    async def seek(self, request: bpb.SeekBotRequest) -> tuple[Challenge, BotAccount]:
        me = auth.caller()
        game = game_type(request.game_type, self.game_types)
        control = time_control_json(time_control_of(game, request.time_control))
        low, high = float(request.min_rating), float(request.max_rating or 10_000)
        if low > high:
            raise InvalidArgument("min_rating is above max_rating", reason="BAD_RATING_WINDOW")
        as_bot = BOT_ROLE in me.roles and is_bot_id(me.player_id)
        if request.rated and not as_bot and not self.rated_with_people:
            raise FailedPrecondition(
                "bots' ratings are kept apart from people's here: ask for a casual game",
                reason="BOTS_RATED_APART",
            )
        await self.check_open_games(game.name)
        pool = [b for b in await self.bots.pool() if b != me.player_id]
        loaded = await asyncio.gather(*(self._candidate(b, game.name) for b in pool))
        near = await self.ratings(me.player_id, game.name)
        fit = rules.choose(
            [c for c in loaded if c is not None],
            game.name,
            {k: v for k, v in control.items() if isinstance(v, int)},
            request.rated,
            low,
            high,
            near,
        )
        if not fit:
            raise FailedPrecondition(
                "no bot is available for this game now; try again later, or another window",
                reason="NO_BOT_AVAILABLE",
            )
        if as_bot:
            owner = (await self.bots.get(me.player_id)).owner_id
            await self.bots.spend_budget(owner, me.player_id, self.per_owner_per_hour)
        for candidate in fit:
            bot = candidate.bot

            def issued(challenge_id: str, now: float, bot: BotAccount = bot) -> ChallengeIssued:
                return ChallengeIssued(
                    challenge_id=challenge_id,
                    challenger=me.player_id,
                    challenger_name=me.name or me.player_id,
                    game_type=game.name,
                    invitees=(bot.bot_id,),
                    open_seats=0,
                    bots=(),
                    time_control=control,
                    seat_choice=RANDOM,
                    rated=request.rated,
                    created_at=now,
                    expires_at=now + SEEK_EXPIRY_SECONDS,
                )

            state = await self.challenges.issue(issued, declines=self.screen.declines)
            issued_as = state.issued
            assert issued_as is not None
            if state.status == DECLINED:
                continue  # it filled up meanwhile (declined for it as issued): the next one
            matched = await self.challenges.accept(issued_as.challenge_id, bot.bot_id, bot.handle)
            return matched, bot
        raise FailedPrecondition(
            "no bot is available for this game now; try again later, or another window",
            reason="NO_BOT_AVAILABLE",
        )
