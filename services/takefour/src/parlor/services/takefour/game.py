"""Take Four, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.takefour`` (every rule, in words: docs/rules/takefour.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, the idle clocks
(``timing``) and how replay tools rebuild commands (``replay``). This module adds the
event codec and what of it may be published (hands, grids and bags never are), the bots,
the proto and the time controls. It is registered under ``parlor.game_types``
(pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Table
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import takefour as tf
from parlor.rules.takefour import replay
from parlor.rules.takefour.contract import ENGINE
from parlor.rules.takefour.standings import standings as standings  # the component's too
from parlor.rules.takefour.timing import Timing
from parlor.services.takefour.codec import Codec, Event, public
from parlor.takefour.v1 import takefour_pb2

BOT_LEVELS = {"easy": 2_000, "medium": 20_000, "hard": 100_000}
"""Bot level -> the bot's search budget (nodes per crossword build), weakest first."""
BOT_PACE_SECONDS = {"easy": 8.0, "medium": 5.0, "hard": 3.0}
"""Bot level -> seconds between two of its steps (a tile placed...) while a person plays."""

GAME: GameType[Table[tf.TakeFourState], Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    Timing(),
    takefour_pb2,
    bots=tuple(BOT_LEVELS),
    public=public,
    rules_page="docs/rules/takefour.md",
    default_time_control=TimeControl.per_move(120),
    time_controls=(
        TimeControl.per_move(60),
        TimeControl.per_move(120),
        TimeControl.correspondence(days=1),
    ),
)
