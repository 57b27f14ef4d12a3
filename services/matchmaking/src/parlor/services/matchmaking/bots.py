"""Bot accounts in the event store, and ``parlor.bots.v1.BotService`` over them.

Streams (not relayed to the bus, as accounts' are not):

- ``bot-<bot id>``: the bot's events (``botaccount``): registered, secret issued or
  revoked, disabled;
- ``accounthandle-<digest of the skeleton>``: the same handle claims as accounts', so a
  handle (and each look-alike) is held by one person or one bot.

Registering records the bot (with its handle) first, then claims the handle (a conflict
re-reads; a taken handle withdraws the registration), then issues the secret: a claim's
holder that is a bot has always recorded its handle, so no account may take it as stale.

A secret is ``<bot id>.<random>``: only its SHA-256 digest is kept, compared in constant
time. Exchanged, it gives a token like any player's, for the bot's id, with the role
``bot``; a person's token never gains that role (only an exchange grants it, and the token
is refreshed only by another exchange). See docs/bots.md.

A bot's handle, its skeleton and its description (``BOT_PERSONAL``) are sealed with its
owner's account key (``vault``), like the owner's own personal fields: erasing the owner
shreds them, and from then on no secret of its bots is exchanged (nor once the owner
closes the account).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from parlor.accounts import PLAYER_PREFIX, decode, encode, parse_handle
from parlor.bots.v1 import bots_pb2 as pb
from parlor.bots.v1 import bots_pb2_grpc as pb_grpc
from parlor.common.v1 import common_pb2
from parlor.core.errors import (
    AlreadyExists,
    Conflict,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from parlor.directory.listed import GameList
from parlor.eventstore import (
    ANY_VERSION,
    NO_STREAM,
    EventStore,
    Metadata,
    NewEvent,
    RecordedEvent,
)
from parlor.eventstore.vault import seal, unseal
from parlor.gametypes.catalogue import CataloguedGame
from parlor.gametypes.seats import BOT_ACCOUNT_PREFIX, is_bot_account
from parlor.kit import auth as tokens
from parlor.kit.auth import AuthSettings, issue_token
from parlor.services.matchmaking import botaccount as rules
from parlor.services.matchmaking.accounts import RETRIES, Accounts
from parlor.services.matchmaking.botaccount import BOT_EVENT_TYPES, BotAccount, BotEvent
from parlor.services.matchmaking.challenge import MATCHED, Challenge
from parlor.services.matchmaking.challenges import Challenges
from parlor.services.matchmaking.games import (
    game_type,
    time_control_from_json,
    time_control_json,
    time_control_of,
)

BOT = "bot"
POOL, POOLED = "botpool-all", "BotPooled"
"""The matchmaker's pool: one event per bot that ever offered itself (``Accepts.matchmaking``)."""
RECENT_MATCH_SECONDS = 30.0
"""How long a bot's new match counts as a game before any directory lists it."""
BUDGET, SOUGHT = "botbudget", "BotGameSought"
"""An owner's bot-against-bot games (``botbudget-<owner id>``): the budget's count."""
BOT_PERSONAL: dict[str, tuple[str, ...]] = {
    "BotRegistered": ("handle", "handle_key", "description")
}
"""The fields of a bot's events sealed with its owner's key (docs/accounts.md, "Erasure")."""
BOT_ID_PREFIX = BOT_ACCOUNT_PREFIX
BOT_ROLE = "bot"
ADMIN_ROLE = "admin"


def new_bot_id() -> str:
    """128 random bits, as an account's id."""
    return BOT_ID_PREFIX + secrets.token_hex(16)


def is_bot_id(player_id: str) -> bool:
    return is_bot_account(player_id)


def bot_stream(bot_id: str) -> str:
    if not is_bot_id(bot_id):
        raise NotFound("no such bot", reason="BOT_NOT_FOUND")
    return f"{BOT}-{bot_id}"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _new_secret(bot_id: str) -> str:
    return f"{bot_id}.{secrets.token_urlsafe(32)}"


def _handle_taken(handle: str) -> AlreadyExists:
    return AlreadyExists(
        f"the handle {handle!r} is taken, or looks like one that is; choose another",
        reason="HANDLE_TAKEN",
    )


class Bots:
    """Bot accounts over any event store (in memory for tests, PostgreSQL in service)."""

    def __init__(
        self, store: EventStore, accounts: Accounts, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.clock = clock

    async def load(self, bot_id: str) -> tuple[BotAccount, int]:
        state, version, _ = await self._declared(bot_id)
        return state, version

    async def _read(self, bot_id: str) -> list[tuple[RecordedEvent, BotEvent]]:
        """The bot's events, their personal fields unsealed with its owner's key (empty
        once the owner is erased; fields stored before sealing read as they are)."""
        read = []
        for recorded in await self.store.read_stream(bot_stream(bot_id)):
            data = recorded.data
            personal = BOT_PERSONAL.get(recorded.type, ())
            if personal:
                fields = json.loads(data)
                key = await self.accounts.keys.get(fields["owner_id"])
                for name in personal:
                    fields[name] = unseal(key, bot_id, recorded.type, name, fields[name])
                data = json.dumps(fields).encode()
            read.append((recorded, decode(dict(BOT_EVENT_TYPES), recorded.type, data)))
        return read

    async def _append(
        self, bot_id: str, events: Sequence[BotEvent], version: int, actor: str
    ) -> None:
        """Append to the bot's stream, its personal fields sealed with its owner's key."""
        new = []
        for event in events:
            kind, data = encode(event)
            personal = BOT_PERSONAL.get(kind, ())
            if personal:
                fields = json.loads(data)
                key = await self.accounts.keys.get_or_create(fields["owner_id"])
                for name in personal:
                    fields[name] = seal(key, bot_id, kind, name, fields[name])
                data = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
            new.append(NewEvent(kind, data, metadata=Metadata(actor=actor)))
        await self.store.append(bot_stream(bot_id), new, version)

    async def get(self, bot_id: str) -> BotAccount:
        state, _ = await self.load(bot_id)
        if not state.exists:
            raise NotFound("no such bot", reason="BOT_NOT_FOUND")
        return state

    async def _execute(
        self, bot_id: str, actor: str, decide: Callable[[BotAccount], Sequence[BotEvent]]
    ) -> BotAccount:
        """Decide against the latest state and append; a concurrent change is re-read."""
        for _ in range(RETRIES):
            state, version = await self.load(bot_id)
            events = decide(state)
            if not events:
                return state
            try:
                await self._append(bot_id, events, version, actor)
            except Conflict:
                continue
            for event in events:
                state = rules.evolve(state, event)
            return state
        raise Conflict("the bot kept changing under this call; retry", reason="CONFLICT")

    async def register(self, owner_id: str, raw_handle: str, text: str) -> tuple[BotAccount, str]:
        """A new bot of ``owner_id`` (an open account) and its secret, shown this once."""
        if not owner_id.startswith(PLAYER_PREFIX):
            raise rules.not_an_account()
        owner = await self.accounts.get(owner_id)
        if owner.closed:
            raise PermissionDenied("a closed account registers no bot", reason="ACCOUNT_CLOSED")
        handle = parse_handle(raw_handle)
        rules.description(text)  # refuse bad input before anything is written
        if await self.accounts.handle_holder_by_key(handle.key) is not None:
            raise _handle_taken(handle.text)  # the common refusal writes nothing
        bot_id, now = new_bot_id(), int(self.clock())
        await self._execute(
            bot_id,
            owner_id,
            lambda s: rules.register(s, bot_id, owner_id, handle.text, handle.key, text, now),
        )
        try:
            await self.accounts.claim_handle(bot_id, handle)
        except BaseException:
            await self._execute(bot_id, owner_id, lambda s: [rules.RegistrationWithdrawn(now)])
            raise
        secret = _new_secret(bot_id)
        bot = await self._execute(
            bot_id, owner_id, lambda s: rules.issue_secret(s, owner_id, digest(secret), now)
        )
        return bot, secret

    async def rotate(self, owner_id: str, bot_id: str) -> str:
        secret = _new_secret(bot_id)
        now = int(self.clock())
        await self._execute(
            bot_id, owner_id, lambda s: rules.issue_secret(s, owner_id, digest(secret), now)
        )
        return secret

    async def revoke(self, owner_id: str, bot_id: str) -> BotAccount:
        now = int(self.clock())
        return await self._execute(
            bot_id, owner_id, lambda s: rules.revoke_secret(s, owner_id, now)
        )

    async def disable(self, operator_id: str, bot_id: str, reason: str) -> BotAccount:
        now = int(self.clock())
        return await self._execute(bot_id, operator_id, lambda s: rules.disable(s, reason, now))

    async def sign_in(self, secret: str) -> BotAccount:
        """The bot whose current secret ``secret`` is; else UNAUTHENTICATED (or
        PERMISSION_DENIED for a disabled bot)."""
        bot_id, dot, _ = secret.partition(".")
        if not dot or not is_bot_id(bot_id):
            raise rules.invalid_secret()
        state, _ = await self.load(bot_id)
        matches = hmac.compare_digest(state.secret_digest or "-", digest(secret))
        rules.may_sign_in(state, matches)
        owner, _ = await self.accounts.load(state.owner_id)
        if owner.closed:  # erased ones are closed too
            raise PermissionDenied(
                "this bot's owner closed their account: its bots play no more",
                reason="OWNER_CLOSED",
            )
        return state

    async def declare(
        self,
        bot_id: str,
        game_types: Sequence[str],
        time_controls: Sequence[dict[str, int]],
        rated: str,
        max_games: int,
        matchmaking: bool = False,
    ) -> BotAccount:
        now = int(self.clock())
        bot = await self._execute(
            bot_id,
            bot_id,
            lambda s: rules.declare(
                s, bot_id, game_types, time_controls, rated, max_games, now, matchmaking
            ),
        )
        if matchmaking:  # in the matchmaker's pool from now on (once: the command id)
            await self.store.append(
                POOL,
                [NewEvent(POOLED, bot_id.encode(), metadata=Metadata(actor=bot_id))],
                ANY_VERSION,
                command_id=f"pool-{bot_id}",
            )
        return bot

    async def pool(self) -> list[str]:
        """Every bot that ever offered itself to the matchmaker (each loaded to see whether
        it is available now: ``BotAccount.available``)."""
        return list(dict.fromkeys(e.data.decode() for e in await self.store.read_stream(POOL)))

    async def mark_unavailable(self, bot_id: str, game: str, finished_at: float) -> None:
        """The bot ran out of time in ``game``, which finished at ``finished_at``: unless it
        declared again since (a replayed step of the turn feed), offered no more."""
        state, version, declared = await self._declared(bot_id)
        if declared > finished_at:
            return
        events = rules.mark_unavailable(state, game, int(self.clock()))
        if events:
            with contextlib.suppress(Conflict):  # it declared meanwhile: it answers again
                await self._append(bot_id, events, version, "turnfeed")

    async def _declared(self, bot_id: str) -> tuple[BotAccount, int, float]:
        """The bot, its stream's version and when it last declared (0: never)."""
        state, declared, version = BotAccount(), 0.0, NO_STREAM
        for recorded, event in await self._read(bot_id):
            state, version = rules.evolve(state, event), recorded.version
            if isinstance(event, rules.AcceptsDeclared):
                declared = recorded.recorded_at.timestamp()
        return state, version, declared

    async def spend_budget(self, owner_id: str, bot_id: str, per_hour: int) -> None:
        """One bot-against-bot game out of ``owner_id``'s budget (``botbudget-<owner>``,
        appended at the version read: two replicas cannot both pass the last one)."""
        stream = f"{BUDGET}-{owner_id}"
        for _ in range(RETRIES):
            recorded = await self.store.read_stream(stream)
            sought = [rules.BotGameSought(**json.loads(e.data)) for e in recorded]
            spent = rules.spend_budget(sought, bot_id, per_hour, self.clock())
            version = recorded[-1].version if recorded else NO_STREAM
            try:
                await self.store.append(
                    stream,
                    [
                        NewEvent(
                            SOUGHT,
                            json.dumps(asdict(spent)).encode(),
                            metadata=Metadata(actor=bot_id),
                        )
                    ],
                    version,
                )
                return
            except Conflict:
                continue
        raise Conflict("the owner's budget kept changing under this call; retry", reason="CONFLICT")

    async def handles(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The handle of each registered bot among ``player_ids`` (``GetPlayers``)."""
        return {bot.bot_id: bot.handle for bot in await self.many(player_ids)}

    async def many(self, bot_ids: Sequence[str]) -> list[BotAccount]:
        """The bots among ``bot_ids`` (distinct, in the order given)."""
        wanted = [b for b in dict.fromkeys(bot_ids) if is_bot_id(b)]
        loaded = await asyncio.gather(*(self.load(b) for b in wanted))
        return [state for state, _ in loaded if state.exists]


def bot_message(bot: BotAccount) -> pb.Bot:
    message = pb.Bot(
        bot_id=bot.bot_id,
        handle=bot.handle,
        description=bot.description,
        owner_id=bot.owner_id,
        disabled=bot.disabled,
        has_secret=bool(bot.secret_digest) and not bot.disabled,
    )
    message.created_at.FromSeconds(bot.created_at)
    if bot.accepts is not None:
        accepts = bot.accepts
        message.accepts.CopyFrom(
            pb.Accepts(
                game_types=accepts.game_types,
                time_controls=[_control_pb(dict(c)) for c in accepts.time_controls],
                rated=RATED_PB[accepts.rated],
                max_games=accepts.max_games,
                matchmaking=accepts.matchmaking,
            )
        )
    message.unavailable = bool(bot.unavailable_since)
    message.unavailable_since_game = bot.unavailable_since
    return message


RATED = {
    pb.RATED_CHOICE_UNSPECIFIED: rules.RATED_EITHER,
    pb.RATED_CHOICE_EITHER: rules.RATED_EITHER,
    pb.RATED_CHOICE_RATED_ONLY: rules.RATED_ONLY,
    pb.RATED_CHOICE_CASUAL_ONLY: rules.CASUAL_ONLY,
}
RATED_PB = {
    rules.RATED_EITHER: pb.RATED_CHOICE_EITHER,
    rules.RATED_ONLY: pb.RATED_CHOICE_RATED_ONLY,
    rules.CASUAL_ONLY: pb.RATED_CHOICE_CASUAL_ONLY,
}


def _control_pb(stored: dict[str, int]) -> common_pb2.TimeControl:
    return time_control_from_json(stored, "").to_proto()


def _declared_controls(
    names: Sequence[str], controls: Sequence[common_pb2.TimeControl], offered: tuple[str, ...]
) -> tuple[list[str], list[dict[str, int]]]:
    """The declared game types (each offered) and time controls (each accepted by one of
    them), as challenges store them; INVALID_ARGUMENT otherwise."""
    games = [game_type(name, offered) for name in names]
    stored: list[dict[str, int]] = []
    for control in controls:
        refusal: InvalidArgument | None = None
        for game in games:
            try:
                stored.append(time_control_json(time_control_of(game, control)))
                break
            except InvalidArgument as exc:
                refusal = exc
        else:
            if refusal is not None:
                raise refusal
    return [g.name for g in games], stored


def _person() -> str:
    """The caller's id, if it is a signed-in account's (a bot's or guest's token is not)."""
    identity = tokens.caller()
    if BOT_ROLE in identity.roles or not identity.player_id.startswith(PLAYER_PREFIX):
        raise rules.not_an_account()
    return identity.player_id


def _bot_id(raw: str) -> str:
    if not raw:
        raise InvalidArgument("a bot id is needed", reason="BAD_BOT")
    if not is_bot_id(raw):
        raise NotFound("no such bot", reason="BOT_NOT_FOUND")
    return raw


class BotServicer(pb_grpc.BotServiceServicer):
    def __init__(self, auth: AuthSettings, bots: Bots, game_types: tuple[str, ...]) -> None:
        self.auth = auth
        self.bots = bots
        self.game_types = game_types
        self.seek: Callable[[pb.SeekBotRequest], Awaitable[pb.SeekBotResponse]] | None = None
        """``SeekBot`` (``botmatch``), set once the challenges it issues exist."""

    async def RegisterBot(
        self, request: pb.RegisterBotRequest, context: Any
    ) -> pb.RegisterBotResponse:
        bot, secret = await self.bots.register(_person(), request.handle, request.description)
        return pb.RegisterBotResponse(bot=bot_message(bot), secret=secret)

    async def ExchangeBotSecret(
        self, request: pb.ExchangeBotSecretRequest, context: Any
    ) -> pb.ExchangeBotSecretResponse:
        if not request.secret:
            raise InvalidArgument("the bot's secret is needed", reason="BAD_SECRET")
        bot = await self.bots.sign_in(request.secret)
        now = int(self.bots.clock())
        token = issue_token(self.auth, bot.bot_id, bot.bot_id, (BOT_ROLE,), now=now)
        response = pb.ExchangeBotSecretResponse(access_token=token, bot_id=bot.bot_id)
        response.expires_at.FromSeconds(now + self.auth.token_ttl_seconds)
        return response

    async def RotateBotSecret(
        self, request: pb.RotateBotSecretRequest, context: Any
    ) -> pb.RotateBotSecretResponse:
        secret = await self.bots.rotate(_person(), _bot_id(request.bot_id))
        return pb.RotateBotSecretResponse(secret=secret)

    async def RevokeBotSecret(
        self, request: pb.RevokeBotSecretRequest, context: Any
    ) -> pb.RevokeBotSecretResponse:
        await self.bots.revoke(_person(), _bot_id(request.bot_id))
        return pb.RevokeBotSecretResponse()

    async def DisableBot(
        self, request: pb.DisableBotRequest, context: Any
    ) -> pb.DisableBotResponse:
        caller = tokens.caller()
        if ADMIN_ROLE not in caller.roles or BOT_ROLE in caller.roles:
            raise PermissionDenied(
                "only an operator (role admin) disables a bot", reason="NOT_AN_OPERATOR"
            )
        await self.bots.disable(caller.player_id, _bot_id(request.bot_id), request.reason)
        return pb.DisableBotResponse()

    async def GetBots(self, request: pb.GetBotsRequest, context: Any) -> pb.GetBotsResponse:
        tokens.caller()  # any token: who a bot is, is shown to everyone who plays
        found = await self.bots.many(list(request.bot_ids))
        return pb.GetBotsResponse(bots=[bot_message(b) for b in found])

    async def DeclareAccepts(
        self, request: pb.DeclareAcceptsRequest, context: Any
    ) -> pb.DeclareAcceptsResponse:
        caller = tokens.caller()
        if BOT_ROLE not in caller.roles or not is_bot_id(caller.player_id):
            raise PermissionDenied(
                "a bot declares what it accepts with its own token", reason="NOT_THIS_BOT"
            )
        accepts = request.accepts
        names, controls = _declared_controls(
            list(accepts.game_types), list(accepts.time_controls), self.game_types
        )
        rated = RATED.get(accepts.rated)
        if rated is None:
            raise InvalidArgument("rated is either, rated only or casual only", reason="BAD_RATED")
        bot = await self.bots.declare(
            caller.player_id, names, controls, rated, accepts.max_games, accepts.matchmaking
        )
        return pb.DeclareAcceptsResponse(bot=bot_message(bot))

    async def SeekBot(self, request: pb.SeekBotRequest, context: Any) -> pb.SeekBotResponse:
        if self.seek is None:
            raise FailedPrecondition(
                "the matchmaker offers no bots here", reason="NO_BOT_AVAILABLE"
            )
        return await self.seek(request)


class BotScreen:
    """Declines for its bots the challenges they cannot take, as they are issued."""

    def __init__(
        self,
        bots: Bots,
        challenges: Challenges,
        game_types: tuple[str, ...],
        open_games: Callable[[CataloguedGame], GameList | None],
    ) -> None:
        self.bots = bots
        self.challenges = challenges
        self.game_types = game_types
        self.open_games = open_games

    async def playing(self, bot_id: str, at_most: int) -> int:
        """The bot's unfinished games, over every game type (counted up to ``at_most``): the
        directories' count (a catch-up at most a second old), and the matches made for it in
        the last ``RECENT_MATCH_SECONDS`` that no directory lists yet (a match's game is made
        by its game service after the match, then caught up): a bot given its last game a
        moment ago is full at once."""
        count = 0
        for name in self.game_types:
            games = self.open_games(game_type(name, self.game_types))
            if games is not None and count < at_most:
                count += await games.open_games(bot_id, at_most - count)
        if count >= at_most:
            return count
        now = self.challenges.clock()
        inbox = await self.challenges.inbox(bot_id)
        recent = [
            n.challenge_id
            for n in inbox.latest.values()
            if n.status == MATCHED and n.at > now - RECENT_MATCH_SECONDS
        ]
        if not recent:
            return count
        since = datetime.fromtimestamp(now - RECENT_MATCH_SECONDS - 60, UTC)
        listed: set[str] = set()
        for name in self.game_types:
            games = self.open_games(game_type(name, self.game_types))
            if games is not None:
                found = await games.list(player_id=bot_id, since=since, limit=500)
                listed.update(g.game_id for g in found)
        for challenge_id in recent:
            if (await self.challenges.get(challenge_id)).match_id not in listed:
                count += 1
        return min(count, at_most)

    async def declines(self, state: Challenge) -> list[tuple[str, str]]:
        """For a challenge being issued: (bot, reason) for each bot invitee that cannot take
        it, declined with its issue in one append (``Challenges.issue``)."""
        issued = state.issued
        found: list[tuple[str, str]] = []
        for invitee in issued.invitees if issued is not None else ():
            if not is_bot_id(invitee):
                continue
            assert issued is not None
            bot, _ = await self.bots.load(invitee)
            accepts = bot.accepts
            playing = await self.playing(invitee, accepts.max_games) if accepts else 0
            reason = rules.NOT_NOW if bot.disabled else None
            reason = reason or rules.screen(
                accepts, issued.game_type, _ints(issued.time_control), issued.rated, playing
            )
            if reason is not None:
                found.append((invitee, reason))
        return found


def _ints(stored: Mapping[str, object]) -> dict[str, int]:
    return {k: v for k, v in stored.items() if isinstance(v, int)}
