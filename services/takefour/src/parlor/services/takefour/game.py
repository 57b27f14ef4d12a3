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
    """Lowest total wins (rank 1, shared on ties); each seat's score is its total."""
    totals = state.totals
    reason = "TARGET_SCORE" if max(totals) >= state.config.target else "ROUNDS_PLAYED"
    return reason, tuple(
        Standing(rank=1 + sum(1 for other in totals if other < total), score=total)
        for total in totals
    )


def rules() -> Seated[tf.TakeFourState, tf.TakeFourCommand, tf.TakeFourEvent]:
    return Seated(tf.TAKE_FOUR, MIN_SEATS, MAX_SEATS, standings)


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
)
