"""The tournament service's settings (every one documented in deploy/README.md)."""

from __future__ import annotations

from dataclasses import dataclass

from parlor.kit.settings import setting


@dataclass(frozen=True)
class TournamentSettings:
    max_players: int = setting(
        "PARLOR_TOURNAMENT_MAX_PLAYERS",
        "the most entrants a tournament may be created for (a bigger one is refused,"
        " RESOURCE_EXHAUSTED TOURNAMENT_TOO_BIG)",
        512,
    )
    max_open_per_organiser: int = setting(
        "PARLOR_TOURNAMENT_MAX_OPEN_PER_ORGANISER",
        "the most unfinished tournaments one organiser may hold (TOO_MANY_TOURNAMENTS)",
        10,
    )
    driver_interval_seconds: float = setting(
        "PARLOR_TOURNAMENT_DRIVER_INTERVAL_SECONDS",
        "how often each replica's driver asks every running tournament what is due"
        " (pairings, the end) when nothing woke it: any tournament's change (here, or on"
        " another replica through the bus), a result and an arena's end wake it at once;"
        " the safety net for what the bus lost",
        5.0,
    )
    keepalive_seconds: float = setting(
        "PARLOR_TOURNAMENT_KEEPALIVE_SECONDS",
        "how often WatchTournament sends an empty message when nothing changed",
        15.0,
    )
    time_scale: float = setting(
        "PARLOR_TOURNAMENT_TIME_SCALE",
        "TESTS ONLY: how many times faster than the wall clock a tournament's clock runs"
        " (an arena's duration passes this many times faster); 1 in production",
        1.0,
    )
