"""Take Four, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.takefour`` (every rule, in words: docs/rules/takefour.md);
this module adds what the platform needs: the seat range, the standings ``GameFinished``
carries, the event codec and what of it may be published (hands, grids and bags never
are), the bots, the proto service and how replay tools rebuild commands. It is
registered under ``parlor.game_types`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Seated, Standing, Table
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import takefour as tf
from parlor.rules.takefour.contract import ENGINE
from parlor.services.takefour.codec import Codec, Event, public
from parlor.services.takefour.replay import command_of, create_of
from parlor.takefour.v1 import takefour_pb2

CATEGORY = ENGINE.name  # "takefour"
MIN_SEATS, MAX_SEATS = ENGINE.min_seats, ENGINE.max_seats
SERVICE_NAME = takefour_pb2.DESCRIPTOR.services_by_name["TakeFourService"].full_name
BOT_LEVELS = {"easy": 2_000, "medium": 20_000, "hard": 100_000}
"""Bot level -> the bot's search budget (nodes per crossword build), weakest first."""
BOT_PACE_SECONDS = {"easy": 8.0, "medium": 5.0, "hard": 3.0}
"""Bot level -> seconds between two of its steps (a tile placed...) while a person plays."""


def standings(state: tf.TakeFourState) -> tuple[str, tuple[Standing, ...]]:
    """Lowest total wins (rank 1, shared on ties); each seat's score is its total. Seats
    that forfeited rank behind every seat still racing."""
    totals = state.totals
    gone = tuple(p.forfeited for p in state.players)
    reason = "TARGET_SCORE" if max(totals) >= state.config.target else "ROUNDS_PLAYED"
    if sum(1 for g in gone if not g) <= 1 and any(gone):
        reason = "FORFEIT"
    keys = [(g, t) for g, t in zip(gone, totals, strict=True)]
    return reason, tuple(
        Standing(rank=1 + sum(1 for other in keys if other < key), score=key[1]) for key in keys
    )


class Timing:
    """No turns: every seat still racing has an idle clock, restarted by its own actions.
    Past one limit it is marked idle; past three (from its last action) it forfeits."""

    idle = True

    def running(self, game: tf.TakeFourState) -> tuple[int, ...]:
        if game.phase is not tf.Phase.PLAYING:
            return ()
        return tuple(seat for seat, p in enumerate(game.players) if not p.forfeited)

    def timeout(self, game: tf.TakeFourState, seat: int) -> tf.TakeFourCommand:
        if game.players[seat].idle:
            return tf.Forfeit(seat, "TIMEOUT")
        return tf.MarkIdle(seat)

    def factor(self, game: tf.TakeFourState, seat: int) -> int:
        idle = seat < len(game.players) and game.players[seat].idle
        return FORFEIT_LIMITS if idle else 1

    def out(self, game: tf.TakeFourState, seat: int) -> bool:
        """Forfeited for running out of time; a seat that left is out of the race but did
        not time out (its standing is not marked ``timed_out``)."""
        return seat < len(game.players) and game.players[seat].timed_out


FORFEIT_LIMITS = 3
"""An idle seat forfeits once this many limits have passed since its last action."""


def rules() -> Seated[tf.TakeFourState, tf.TakeFourCommand, tf.TakeFourEvent]:
    return Seated(tf.TAKE_FOUR, MIN_SEATS, MAX_SEATS, standings, Timing())


GAME: GameType[Table[tf.TakeFourState], Any, Event] = GameType(
    CATEGORY,
    rules(),
    Codec(),
    command_of,
    create_of,
    bots=tuple(BOT_LEVELS),
    public=public,
    service=SERVICE_NAME,
    engine=ENGINE,
    rules_page="docs/rules/takefour.md",
    default_time_control=TimeControl.per_move(120),
    time_controls=(
        TimeControl.per_move(60),
        TimeControl.per_move(120),
        TimeControl.correspondence(days=1),
    ),
)
