"""A tournament's settings and the checks ``Create`` makes of them.

A ``Settings`` as a client sends it may leave some fields to their defaults (``-1`` or
``()``); ``resolved`` fills them in, so ``TournamentCreated`` records every value the rules
then use and a replay never depends on a default that changed since.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Final, NoReturn

from parlor.core.errors import InvalidArgument
from parlor.tournamentrules import reasons

ARENA: Final = "ARENA"
SWISS: Final = "SWISS"
FORMATS: Final = (ARENA, SWISS)
OPEN: Final = "OPEN"
INVITE: Final = "INVITE"
ACCESS: Final = (OPEN, INVITE)

TABLE_SIZES: Final[dict[str, tuple[int, int]]] = {
    "connect4x4": (2, 4),
    "takefour": (2, 8),
    "upwords": (2, 2),
    "tictactoe": (2, 2),
}
"""Each game type tournaments know, with the smallest and largest table it may use."""

MAX_PLAYERS: Final = 10_000
"""The most entrants the rules take (the service's operator setting caps lower)."""
MAX_ROUNDS: Final = 50
MIN_DURATION_MS: Final = 1_000
MAX_DURATION_MS: Final = 7 * 24 * 3600 * 1000
MAX_POINTS: Final = 1_000
MAX_BERSERK_MIN_MOVES: Final = 1_000
MAX_CLOCK_MS: Final = 7 * 24 * 3600 * 1000
MAX_CLOCK_KIND: Final = 32
MAX_NAME: Final = 100
LICHESS_BERSERK_MIN_MOVES: Final = 7


@dataclass(frozen=True)
class Settings:
    """What an organiser chooses; ``-1`` / ``()`` mean "the documented default"."""

    format: str
    game_type: str
    max_players: int
    table_size: int = 2
    name: str = ""
    rounds: int = 0
    """Swiss: the number of rounds (1..MAX_ROUNDS). Arena: 0."""
    late_entry_until_round: int = -1
    """Swiss: a player may join until this round is paired (and plays from it on); 0 = only
    before the start. Default: half the rounds, rounded up (as lichess)."""
    bye_points: int = -1
    """Swiss: the points of a bye. Default: a win at a full table (``points_by_place[0]``)."""
    duration_ms: int = 0
    """Arena: how long pairing goes on after the start. Swiss: 0."""
    berserk: bool = False
    berserk_min_moves: int = LICHESS_BERSERK_MIN_MOVES
    points_by_place: tuple[int, ...] = ()
    """Points for places 1..table_size. Default: 2 for every player one finishes ahead of
    (``2 * (table_size - place)``): win 2 / loss 0 at two seats, 6/4/2/0 at four."""
    clock_initial_ms: int = 60_000
    clock_increment_ms: int = 0
    clock_kind: str = "fischer"
    rated: bool = False
    access: str = OPEN

    def __post_init__(self) -> None:
        if isinstance(self.points_by_place, list):  # from JSON
            object.__setattr__(self, "points_by_place", tuple(self.points_by_place))

    @property
    def is_arena(self) -> bool:
        return self.format == ARENA

    @property
    def is_swiss(self) -> bool:
        return self.format == SWISS

    def scale(self, seats: int) -> tuple[int, ...]:
        """The points by place at a table of ``seats``: the last ``seats`` of the full scale
        (so a smaller table's last place scores as the full table's last place)."""
        return self.points_by_place[len(self.points_by_place) - seats :]


def default_scale(table_size: int) -> tuple[int, ...]:
    return tuple(2 * (table_size - place) for place in range(1, table_size + 1))


def resolved(settings: Settings) -> Settings:
    """``settings`` checked (``INVALID_ARGUMENT BAD_SETTINGS``, metadata ``field``; or
    ``UNKNOWN_GAME``) with every default filled in."""
    s = settings
    if s.format not in FORMATS:
        _bad("format", f"format is one of {', '.join(FORMATS)}")
    if s.game_type not in TABLE_SIZES:
        raise InvalidArgument(
            f"tournaments are played in {', '.join(sorted(TABLE_SIZES))}",
            reason=reasons.UNKNOWN_GAME,
            metadata={"field": "game_type"},
        )
    low, high = TABLE_SIZES[s.game_type]
    if not low <= s.table_size <= high:
        _bad("table_size", f"{s.game_type} is played at tables of {low} to {high}")
    if not 2 <= s.max_players <= MAX_PLAYERS:
        _bad("max_players", f"max_players is 2 to {MAX_PLAYERS}")
    if len(s.name) > MAX_NAME:
        _bad("name", f"a name holds at most {MAX_NAME} characters")
    scale = s.points_by_place or default_scale(s.table_size)
    if len(scale) != s.table_size:
        _bad("points_by_place", "points_by_place gives one number per place at a full table")
    if any(not 0 <= p <= MAX_POINTS for p in scale) or list(scale) != sorted(scale, reverse=True):
        _bad("points_by_place", f"points_by_place never rises, each 0 to {MAX_POINTS}")
    if scale[0] <= scale[-1]:
        _bad("points_by_place", "the winner scores more than the last place")
    if not 0 <= s.berserk_min_moves <= MAX_BERSERK_MIN_MOVES:
        _bad("berserk_min_moves", f"berserk_min_moves is 0 to {MAX_BERSERK_MIN_MOVES}")
    if not 0 < s.clock_initial_ms <= MAX_CLOCK_MS:
        _bad("clock_initial_ms", "the clock starts with 1 ms to 7 days")
    if not 0 <= s.clock_increment_ms <= MAX_CLOCK_MS:
        _bad("clock_increment_ms", "the increment is 0 to 7 days")
    if not 0 < len(s.clock_kind) <= MAX_CLOCK_KIND:
        _bad("clock_kind", f"the clock's kind is 1 to {MAX_CLOCK_KIND} characters")
    if s.access not in ACCESS:
        _bad("access", f"access is one of {', '.join(ACCESS)}")
    if s.format == SWISS:
        return _swiss(s, scale)
    return _arena(s, scale)


def _swiss(s: Settings, scale: tuple[int, ...]) -> Settings:
    if not 1 <= s.rounds <= MAX_ROUNDS:
        _bad("rounds", f"a Swiss has 1 to {MAX_ROUNDS} rounds")
    if s.duration_ms != 0:
        _bad("duration_ms", "a Swiss has rounds, not a duration")
    if s.berserk:
        _bad("berserk", "berserk is an arena's")
    late = math.ceil(s.rounds / 2) if s.late_entry_until_round == -1 else s.late_entry_until_round
    if not 0 <= late <= s.rounds:
        _bad("late_entry_until_round", "late entry ends at a round from 0 to the last")
    bye = scale[0] if s.bye_points == -1 else s.bye_points
    if not 0 <= bye <= scale[0]:
        _bad("bye_points", "a bye scores 0 to a win's points")
    return dataclasses.replace(
        s, points_by_place=scale, late_entry_until_round=late, bye_points=bye
    )


def _arena(s: Settings, scale: tuple[int, ...]) -> Settings:
    if not MIN_DURATION_MS <= s.duration_ms <= MAX_DURATION_MS:
        _bad("duration_ms", f"an arena lasts {MIN_DURATION_MS} ms to 7 days")
    if s.rounds != 0:
        _bad("rounds", "an arena has a duration, not rounds")
    if s.late_entry_until_round not in (-1, 0):
        _bad("late_entry_until_round", "an arena takes entrants until its time is up")
    if s.bye_points not in (-1, 0):
        _bad("bye_points", "an arena has no byes")
    return dataclasses.replace(s, points_by_place=scale, late_entry_until_round=0, bye_points=0)


def _bad(field: str, message: str) -> NoReturn:
    raise InvalidArgument(message, reason=reasons.BAD_SETTINGS, metadata={"field": field})
