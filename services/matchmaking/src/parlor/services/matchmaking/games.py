"""The game types matchmaking seats players for, and their table sizes, from the registry."""

from __future__ import annotations

from typing import Any

from parlor.core.errors import InvalidArgument
from parlor.gamehost.games import GameType, games

# Bots by strength: the matching library numbers bot levels from 1 (weakest); each game
# service names its own bots. Thresholds (Policy.bot_levels) give one level per name.
BOT_NAMES = ("random", "greedy", "strong")
BOT_THRESHOLDS = (1300.0, 1700.0)


GAME_TYPES: dict[str, GameType[Any, Any, Any]] = games()
"""Every installed game (its declaration in the registry): name, seat range, bot names."""


def game_type(name: str, allowed: tuple[str, ...]) -> GameType[Any, Any, Any]:
    """The game type, or INVALID_ARGUMENT UNKNOWN_GAME_TYPE."""
    found = GAME_TYPES.get(name)
    if found is None or name not in allowed:
        raise InvalidArgument(
            f"unknown game type {name!r}; known: {', '.join(sorted(allowed))}",
            reason="UNKNOWN_GAME_TYPE",
        )
    return found


def check_counts(
    game: GameType[Any, Any, Any], min_players: int, max_players: int
) -> tuple[int, int]:
    """The requested range (0 means the game's own bound), or BAD_PLAYER_COUNT."""
    low = min_players or game.min_seats
    high = max_players or game.max_seats
    if not game.min_seats <= low <= high <= game.max_seats:
        raise InvalidArgument(
            f"{game.name} takes {game.min_seats} to {game.max_seats} players;"
            f" asked for {low} to {high}",
            reason="BAD_PLAYER_COUNT",
        )
    return low, high


def bot_player(level_seat: str, game: str = "connect4x4") -> str:
    """``bot:<n>`` from the matching library → ``bot:<name>`` as the game's service knows bots."""
    level = int(level_seat.split(":", 1)[1])
    names = GAME_TYPES[game].bots if game in GAME_TYPES else ()
    names = names or BOT_NAMES
    return "bot:" + names[min(level, len(names)) - 1]
