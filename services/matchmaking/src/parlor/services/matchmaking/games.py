"""The game types matchmaking seats players for: table sizes, bots and time controls.

Everything is read from each game's declaration in the registry, so a new game edits
nothing here.
"""

from __future__ import annotations

from typing import Any

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.gametypes.catalogue import CataloguedGame, catalogue
from parlor.gametypes.timecontrol import Kind, TimeControl

# Bots by strength: the matching library numbers bot levels from 1 (weakest); each game
# service names its own bots. Thresholds (Policy.bot_levels) give one level per name.
BOT_NAMES = ("random", "greedy", "strong")
BOT_THRESHOLDS = (1300.0, 1700.0)


GAME_TYPES: dict[str, CataloguedGame] = catalogue()
"""Every installed game (its declaration in the registry): name, seat range, bot names."""


def game_type(name: str, allowed: tuple[str, ...]) -> CataloguedGame:
    """The game type, or INVALID_ARGUMENT UNKNOWN_GAME_TYPE."""
    found = GAME_TYPES.get(name)
    if found is None or name not in allowed:
        raise InvalidArgument(
            f"unknown game type {name!r}; known: {', '.join(sorted(allowed))}",
            reason="UNKNOWN_GAME_TYPE",
        )
    return found


def check_counts(game: CataloguedGame, min_players: int, max_players: int) -> tuple[int, int]:
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


def bot_levels(game: CataloguedGame) -> tuple[str, ...]:
    """The game's bot names, weakest first, each once (a level a ticket may name)."""
    return tuple(dict.fromkeys(game.bots))


def bot_level(game: CataloguedGame, name: str) -> int | None:
    """The matching level (1 = weakest) of a bot name ("strong" or "bot:strong"); None if empty.

    INVALID_ARGUMENT UNKNOWN_BOT_LEVEL, naming the game's levels, for any other name.
    """
    if not name:
        return None
    bare = name.removeprefix("bot:")
    if bare not in game.bots:
        known = ", ".join(bot_levels(game)) or "none"
        raise InvalidArgument(
            f"{game.name} has no bot level {name[:32]!r}; its levels: {known}",
            reason="UNKNOWN_BOT_LEVEL",
            metadata={"game_type": game.name, "bot_levels": ",".join(bot_levels(game))},
        )
    return game.bots.index(bare) + 1


def time_control_of(game: CataloguedGame, message: common_pb2.TimeControl) -> TimeControl:
    """The time control a request names, KIND_UNSPECIFIED being the game's default.

    A match always seats a person, so the default for games with people applies even
    when bots fill every other seat. Only one the game accepts may be named
    (``GameType.accepted_time_controls``: its offered ones, its default or none; none
    alone for a game without clocks), so odd ones split no queue and no match forms
    that its game service would refuse. INVALID_ARGUMENT INVALID_TIME_CONTROL if
    malformed or not accepted (the message and metadata ``time_controls`` list those
    accepted).
    """
    return game.accepted_time_control(TimeControl.from_proto(message, game.default_time_control))


def time_control_json(control: TimeControl) -> dict[str, Any]:
    """The time control as stored in ``mm_tickets.time_control`` and ``mm_lobbies``."""
    return {
        "kind": control.kind.value,
        "initial_seconds": control.initial_seconds,
        "increment_seconds": control.increment_seconds,
        "move_seconds": control.move_seconds,
    }


def time_control_from_json(stored: dict[str, Any] | None, game_type_name: str) -> TimeControl:
    """The stored time control; NULL (a row from before time controls): the game's default."""
    if stored is None:
        game = GAME_TYPES.get(game_type_name)
        return game.default_time_control if game is not None else TimeControl()
    return TimeControl(
        Kind(stored["kind"]),
        int(stored["initial_seconds"]),
        int(stored["increment_seconds"]),
        int(stored["move_seconds"]),
    )
