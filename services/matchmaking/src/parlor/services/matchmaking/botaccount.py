"""A bot account's rules: a pure decider over the events of its stream (no I/O, no clock,
no randomness; the service passes the time, the id and the secret's digest in).

A bot is registered by an account (its owner) under a handle; it holds at most one secret
(its SHA-256 digest), which its owner may revoke or replace; an operator may disable it
for good. See docs/bots.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from parlor.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
)

MAX_DESCRIPTION = 280
MAX_REASON = 280
BOT_DISABLED = "BOT_DISABLED"


@dataclass(frozen=True)
class BotRegistered:
    bot_id: str
    owner_id: str
    handle: str
    handle_key: str
    description: str
    at: int


@dataclass(frozen=True)
class RegistrationWithdrawn:
    """Its handle was taken before the bot could claim it: the bot never came to be."""

    at: int


@dataclass(frozen=True)
class SecretIssued:
    digest: str
    at: int


@dataclass(frozen=True)
class SecretRevoked:
    at: int


@dataclass(frozen=True)
class BotDisabled:
    reason: str
    at: int


@dataclass(frozen=True)
class BotAccount:
    bot_id: str = ""
    owner_id: str = ""
    handle: str = ""
    handle_key: str = ""
    description: str = ""
    created_at: int = 0
    withdrawn: bool = False
    secret_digest: str = ""
    """Empty: no secret (never issued, or revoked)."""
    disabled: bool = False
    disabled_reason: str = ""
    accepts: Accepts | None = None
    """What it accepts (``AcceptsDeclared``); None until it declares: it accepts nothing."""
    unavailable_since: str = ""
    """The game (``<game type>-<game id>``) it ran out of time in (``MarkedUnavailable``):
    offered to the matchmaker no more until it declares again. Empty: not marked."""

    @property
    def available(self) -> bool:
        """Whether the matchmaker may give it a game (``SeekBot``)."""
        accepts = self.accepts
        return (
            self.exists
            and not self.disabled
            and accepts is not None
            and accepts.matchmaking
            and not self.unavailable_since
        )

    @property
    def exists(self) -> bool:
        return bool(self.bot_id) and not self.withdrawn


def evolve(state: BotAccount, event: BotEvent) -> BotAccount:
    match event:
        case BotRegistered():
            return BotAccount(
                event.bot_id,
                event.owner_id,
                event.handle,
                event.handle_key,
                event.description,
                event.at,
            )
        case RegistrationWithdrawn():
            return BotAccount(state.bot_id, withdrawn=True)
        case SecretIssued():
            return replace(state, secret_digest=event.digest)
        case SecretRevoked():
            return replace(state, secret_digest="")
        case BotDisabled():
            return replace(state, disabled=True, disabled_reason=event.reason)
        case AcceptsDeclared():
            return replace(state, accepts=_accepts(event), unavailable_since="")
        case MarkedUnavailable():
            return replace(state, unavailable_since=event.game)


def description(raw: str) -> str:
    """A bot's description: at most ``MAX_DESCRIPTION`` printable characters."""
    text = raw.strip()
    if len(text) > MAX_DESCRIPTION or any(not c.isprintable() for c in text):
        raise InvalidArgument(
            f"a description has at most {MAX_DESCRIPTION} printable characters",
            reason="BAD_DESCRIPTION",
        )
    return text


def register(
    state: BotAccount,
    bot_id: str,
    owner_id: str,
    handle: str,
    handle_key: str,
    text: str,
    now: int,
) -> Sequence[BotEvent]:
    if state.bot_id:
        return []  # the same id twice: nothing new (ids are random; a retry is a no-op)
    return [BotRegistered(bot_id, owner_id, handle, handle_key, description(text), now)]


def _existing(state: BotAccount) -> BotAccount:
    if not state.exists:
        raise NotFound("no such bot", reason="BOT_NOT_FOUND")
    return state


def _owned(state: BotAccount, caller: str) -> BotAccount:
    _existing(state)
    if state.owner_id != caller:
        raise PermissionDenied("only the bot's owner may do this", reason="NOT_YOUR_BOT")
    if state.disabled:
        raise PermissionDenied("an operator disabled this bot", reason=BOT_DISABLED)
    return state


def issue_secret(state: BotAccount, caller: str, digest: str, now: int) -> Sequence[BotEvent]:
    """A new secret, replacing any other; only its owner, and not once disabled."""
    _owned(state, caller)
    return [SecretIssued(digest, now)]


def revoke_secret(state: BotAccount, caller: str, now: int) -> Sequence[BotEvent]:
    _owned(state, caller)
    return [SecretRevoked(now)] if state.secret_digest else []


def disable(state: BotAccount, reason: str, now: int) -> Sequence[BotEvent]:
    _existing(state)
    text = reason.strip()
    if len(text) > MAX_REASON or any(not c.isprintable() for c in text):
        raise InvalidArgument(
            f"a reason has at most {MAX_REASON} printable characters", reason="BAD_REASON"
        )
    return [] if state.disabled else [BotDisabled(text, now)]


def may_sign_in(state: BotAccount, digest_matches: bool) -> None:
    """Refuse a secret that is not the bot's current one, or any secret of a disabled bot."""
    if state.exists and state.disabled:
        raise PermissionDenied("an operator disabled this bot", reason=BOT_DISABLED)
    if not state.exists or not state.secret_digest or not digest_matches:
        raise invalid_secret()


def invalid_secret() -> Unauthenticated:
    return Unauthenticated(
        "this bot secret is not valid (revoked, replaced or never issued)",
        reason="BOT_SECRET_INVALID",
    )


def not_an_account() -> FailedPrecondition:
    return FailedPrecondition(
        "bots are registered by an account's holder (signed in; not a guest or a bot)",
        reason="NOT_AN_ACCOUNT",
    )


# -- what a bot accepts ----------------------------------------------------------------------

MAX_GAMES = 64
RATED_EITHER, RATED_ONLY, CASUAL_ONLY = "either", "rated", "casual"
TOO_FAST, TOO_SLOW, NOT_NOW, NOT_THIS_GAME = "too_fast", "too_slow", "not_now", "not_this_game"
"""Decline reasons, as the challenge decider names them (``challengeview.DECLINE``)."""


@dataclass(frozen=True)
class AcceptsDeclared:
    game_types: list[str]
    time_controls: list[dict[str, int]]
    """As challenges store them (``games.time_control_json``); empty: any."""
    rated: str
    max_games: int
    at: int
    matchmaking: bool = False
    """Offered to the matchmaker (``SeekBot``); events stored before it: not."""


@dataclass(frozen=True)
class MarkedUnavailable:
    """It ran out of time (or never started) in ``game`` (``<game type>-<game id>``): a bot
    that stopped answering is offered no more games until it declares again."""

    game: str
    at: int


def mark_unavailable(state: BotAccount, game: str, now: int) -> Sequence[BotEvent]:
    """The turn feed saw the bot's seat run out of time in ``game``."""
    if not state.exists or state.unavailable_since:
        return []
    return [MarkedUnavailable(game, now)]


BotEvent = (
    BotRegistered
    | RegistrationWithdrawn
    | SecretIssued
    | SecretRevoked
    | BotDisabled
    | AcceptsDeclared
    | MarkedUnavailable
)
BOT_EVENT_TYPES: dict[str, type[BotEvent]] = {
    cls.__name__: cls
    for cls in (
        BotRegistered,
        RegistrationWithdrawn,
        SecretIssued,
        SecretRevoked,
        BotDisabled,
        AcceptsDeclared,
        MarkedUnavailable,
    )
}


@dataclass(frozen=True)
class Accepts:
    game_types: tuple[str, ...]
    time_controls: tuple[tuple[tuple[str, int], ...], ...]
    rated: str
    max_games: int
    matchmaking: bool = False


def declare(
    state: BotAccount,
    caller: str,
    game_types: Sequence[str],
    time_controls: Sequence[dict[str, int]],
    rated: str,
    max_games: int,
    now: int,
    matchmaking: bool = False,
) -> Sequence[BotEvent]:
    """The bot itself (its own token) says what it accepts from now on (and, with
    ``matchmaking``, that the matchmaker may offer it: available again if it was marked
    unavailable)."""
    _existing(state)
    if caller != state.bot_id:
        raise PermissionDenied("a bot declares what it accepts itself", reason="NOT_THIS_BOT")
    if state.disabled:
        raise PermissionDenied("an operator disabled this bot", reason=BOT_DISABLED)
    if not game_types:
        raise InvalidArgument("name at least one game type", reason="UNKNOWN_GAME_TYPE")
    if not 1 <= max_games <= MAX_GAMES:
        raise InvalidArgument(
            f"max_games is 1 to {MAX_GAMES}",
            reason="BAD_MAX_GAMES",
            metadata={"max": str(MAX_GAMES)},
        )
    if rated not in (RATED_EITHER, RATED_ONLY, CASUAL_ONLY):
        raise InvalidArgument("rated is either, rated or casual", reason="BAD_RATED")
    return [
        AcceptsDeclared(
            sorted(set(game_types)),
            [dict(c) for c in time_controls],
            rated,
            max_games,
            now,
            matchmaking,
        )
    ]


def _accepts(event: AcceptsDeclared) -> Accepts:
    return Accepts(
        tuple(event.game_types),
        tuple(tuple(sorted(c.items())) for c in event.time_controls),
        event.rated,
        event.max_games,
        event.matchmaking,
    )


def _pace(control: dict[str, int]) -> float:
    """Roughly the seconds a seat has for one move (no clock: no limit)."""
    if control.get("move_seconds"):
        return float(control["move_seconds"])
    if control.get("initial_seconds"):
        return control["initial_seconds"] / 40 + control.get("increment_seconds", 0)
    return float("inf")


def screen(
    accepts: Accepts | None,
    game_type: str,
    time_control: dict[str, int],
    rated: bool,
    playing: int,
) -> str | None:
    """Why the bot declines such a challenge (a decline reason), or None: it may take it.
    ``playing``: its unfinished games now."""
    if accepts is None or game_type not in accepts.game_types:
        return NOT_THIS_GAME
    if (accepts.rated == RATED_ONLY and not rated) or (accepts.rated == CASUAL_ONLY and rated):
        return NOT_THIS_GAME
    if accepts.time_controls and tuple(sorted(time_control.items())) not in accepts.time_controls:
        fastest = min(_pace(dict(c)) for c in accepts.time_controls)
        return TOO_FAST if _pace(time_control) < fastest else TOO_SLOW
    if playing >= accepts.max_games:
        return NOT_NOW
    return None


# -- the matchmaker's bots -----------------------------------------------------------------

BOT_GAMES_BUDGET = "BOT_GAMES_BUDGET"
BUDGET_WINDOW_SECONDS = 3600


@dataclass(frozen=True)
class BotGameSought:
    """One bot-against-bot game an owner's bot asked the matchmaker for (``botbudget-<owner>``)."""

    bot_id: str
    at: float


def spend_budget(
    sought: Sequence[BotGameSought], bot_id: str, per_hour: int, now: float
) -> BotGameSought:
    """One more bot-against-bot game for an owner whose bots asked for ``sought`` before:
    at most ``per_hour`` in any hour (a rate, not a daily cap); RESOURCE_EXHAUSTED past it,
    saying when the next one may be asked for."""
    recent = sorted(s.at for s in sought if s.at > now - BUDGET_WINDOW_SECONDS)
    if len(recent) >= per_hour:
        wait = recent[len(recent) - per_hour] + BUDGET_WINDOW_SECONDS - now
        raise ResourceExhausted(
            f"an owner's bots may play {per_hour} games against bots an hour;"
            f" the next in {wait:.0f} s",
            reason=BOT_GAMES_BUDGET,
            metadata={
                "retry_after_seconds": str(max(1, int(wait + 0.999))),
                "per_hour": str(per_hour),
            },
        )
    return BotGameSought(bot_id, now)


@dataclass(frozen=True)
class Candidate:
    """A bot the matchmaker may give a game (``SeekBot``), as loaded now."""

    bot: BotAccount
    playing: int
    rating: float


def choose(
    candidates: Sequence[Candidate],
    game_type: str,
    time_control: dict[str, int],
    rated: bool,
    low: float,
    high: float,
    near: float,
) -> list[Candidate]:
    """The bots that may be given such a game (available, accepting it, under their
    ``max_games``, rated within ``[low, high]``), least busy first, then nearest ``near``."""
    fit = [
        c
        for c in candidates
        if c.bot.available
        and screen(c.bot.accepts, game_type, time_control, rated, c.playing) is None
        and low <= c.rating <= high
    ]
    return sorted(fit, key=lambda c: (c.playing, abs(c.rating - near), c.bot.bot_id))
