"""Matchmaking's settings: the matching policy, how often rounds run, how long rows are kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from parlor.kit.settings import SettingsError, setting
from parlor.matching import Policy
from parlor.services.matchmaking.games import BOT_THRESHOLDS, GAME_TYPES

MIN_RETENTION_HOURS = 1.0


@dataclass(frozen=True)
class MatchmakingSettings:
    round_seconds: float = setting(
        "PARLOR_MATCHMAKING_ROUND_SECONDS",
        "least pause between two matching rounds of a game type (a round runs when a ticket"
        " changes or time could change its outcome, not this often whatever happens)",
        0.5,
    )
    idle_round_seconds: float = setting(
        "PARLOR_MATCHMAKING_IDLE_ROUND_SECONDS",
        "every game type with waiting tickets gets a round at least this often, whatever"
        " this process was told: the safety net for a change made by a replica that stopped"
        " before its round",
        5.0,
    )
    game_types: tuple[str, ...] = setting(
        "PARLOR_MATCHMAKING_GAME_TYPES",
        "game types offered (comma-separated)",
        tuple(GAME_TYPES),
    )
    window_base: float = setting(
        "PARLOR_MATCHMAKING_WINDOW_BASE", "rating window of a fresh ticket (points)", 100.0
    )
    window_growth: float = setting(
        "PARLOR_MATCHMAKING_WINDOW_GROWTH", "rating window growth per second waited", 10.0
    )
    window_cap: float = setting(
        "PARLOR_MATCHMAKING_WINDOW_CAP", "widest rating window (points)", 800.0
    )
    accept_minimum_seconds: float = setting(
        "PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS",
        "wait after which a ticket takes any table size in its range, not only its maximum",
        30.0,
    )
    bot_fill_seconds: float | None = setting(
        "PARLOR_MATCHMAKING_BOT_FILL_SECONDS",
        "wait after which empty seats are filled with bots (empty: never;"
        " a ticket's bots_at_once skips it)",
        60.0,
    )
    expire_seconds: float = setting(
        "PARLOR_MATCHMAKING_EXPIRE_SECONDS", "wait after which a ticket expires", 600.0
    )
    watch_heartbeat_seconds: float = setting(
        "PARLOR_MATCHMAKING_WATCH_HEARTBEAT_SECONDS",
        "WatchTicket sends a waiting ticket again after this long without a change, so the"
        " stream is never silent (keep it well under PARLOR_STREAM_IDLE_SECONDS)",
        20.0,
    )
    retention_hours: float = setting(
        "PARLOR_MATCHMAKING_RETENTION_HOURS",
        "hours finished tickets, their matches and emptied lobbies are kept before the"
        " sweep deletes them (at least 1)",
        48.0,
    )
    challenge_expire_seconds: float = setting(
        "PARLOR_CHALLENGES_EXPIRE_SECONDS",
        "how long a challenge waits for answers when it names no expiry",
        86_400.0,
    )
    challenges_max_outstanding: int = setting(
        "PARLOR_CHALLENGES_MAX_OUTSTANDING",
        "pending challenges one player may have (0: no limit)",
        20,
    )
    challenges_keepalive_seconds: float = setting(
        "PARLOR_CHALLENGES_KEEPALIVE_SECONDS",
        "how often WatchPlayer sends a message when nothing happens",
        15.0,
    )
    challenges_per_hour: int = setting(
        "PARLOR_CHALLENGES_PER_HOUR", "new challenges one player may make an hour (0: no limit)", 60
    )
    turn_feed_poll_seconds: float = setting(
        "PARLOR_TURN_FEED_POLL_SECONDS",
        "least pause between two steps of the turn feed, which looks for games that came to"
        " wait for a player ('your turn' notices on WatchPlayer) when a game event is on the"
        " bus: the moves of a pause share one step",
        0.5,
    )
    turn_feed_idle_seconds: float = setting(
        "PARLOR_TURN_FEED_IDLE_SECONDS",
        "the turn feed steps at least this often when no game event on the bus wakes it"
        " (NATS away, a message lost): the safety net",
        5.0,
    )
    bot_games_per_owner_per_hour: int = setting(
        "PARLOR_BOTS_GAMES_PER_OWNER_PER_HOUR",
        "games against bots that all of one owner's bots together may ask the matchmaker for"
        " in any hour (SeekBot by a bot; BOT_GAMES_BUDGET past it)",
        120,
    )
    bots_rated_with_people: bool = setting(
        "PARLOR_BOTS_RATED_WITH_PEOPLE",
        "join bots' rated pool to people's: the matchmaker gives people rated games against"
        " bot accounts (off: only casual ones, BOTS_RATED_APART)",
        False,
    )
    challenges_declines_per_day: int = setting(
        "PARLOR_CHALLENGES_DECLINES_PER_DAY",
        "challenges one player may decline in 24 hours (one more: RESOURCE_EXHAUSTED"
        " TOO_MANY_DECLINES; 0: no limit)",
        30,
    )

    def __post_init__(self) -> None:
        if not self.retention_hours >= MIN_RETENTION_HOURS:
            raise SettingsError(
                f"PARLOR_MATCHMAKING_RETENTION_HOURS={self.retention_hours} is invalid:"
                f" at least {MIN_RETENTION_HOURS:g} (a player must see how their ticket ended)"
            )

    def policy(self) -> Policy:
        return Policy(
            window_base=self.window_base,
            window_growth=self.window_growth,
            window_cap=self.window_cap,
            accept_minimum_after=timedelta(seconds=self.accept_minimum_seconds),
            bot_fill_after=(
                None if self.bot_fill_seconds is None else timedelta(seconds=self.bot_fill_seconds)
            ),
            expires_after=timedelta(seconds=self.expire_seconds),
            bot_levels=BOT_THRESHOLDS,
        )
