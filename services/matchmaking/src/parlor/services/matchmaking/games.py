"""The game types matchmaking seats players for, and their table sizes."""

from __future__ import annotations

from dataclasses import dataclass

from parlor.core.errors import InvalidArgument

# Bots by strength: the matching library numbers bot levels from 1 (weakest); each game
# service names its own bots. Thresholds (Policy.bot_levels) give one level per name.
BOT_NAMES = ("random", "greedy", "strong")
BOT_THRESHOLDS = (1300.0, 1700.0)


@dataclass(frozen=True)
class GameType:
    name: str
    min_players: int
    max_players: int
    # the game service's bot names, weakest first, one per matching level
    bots: tuple[str, ...] = BOT_NAMES


GAME_TYPES = {
    g.name: g
    for g in (
        GameType("connect4x4", 2, 4, ("random", "greedy", "strong")),
        GameType("upwords", 2, 4, ("random", "best", "best")),
        GameType("takefour", 2, 8, ("easy", "medium", "hard")),
    )
}


def game_type(name: str, allowed: tuple[str, ...]) -> GameType:
    """The game type, or INVALID_ARGUMENT UNKNOWN_GAME_TYPE."""
    found = GAME_TYPES.get(name)
    if found is None or name not in allowed:
        raise InvalidArgument(
            f"unknown game type {name!r}; known: {', '.join(sorted(allowed))}",
            reason="UNKNOWN_GAME_TYPE",
        )
    return found


def check_counts(game: GameType, min_players: int, max_players: int) -> tuple[int, int]:
    """The requested range (0 means the game's own bound), or BAD_PLAYER_COUNT."""
    low = min_players or game.min_players
    high = max_players or game.max_players
    if not game.min_players <= low <= high <= game.max_players:
        raise InvalidArgument(
            f"{game.name} takes {game.min_players} to {game.max_players} players;"
            f" asked for {low} to {high}",
            reason="BAD_PLAYER_COUNT",
        )
    return low, high


def bot_player(level_seat: str, game: str = "connect4x4") -> str:
    """``bot:<n>`` from the matching library → ``bot:<name>`` as the game's service knows bots."""
    level = int(level_seat.split(":", 1)[1])
    names = GAME_TYPES[game].bots if game in GAME_TYPES else BOT_NAMES
    return "bot:" + names[min(level, len(names)) - 1]
