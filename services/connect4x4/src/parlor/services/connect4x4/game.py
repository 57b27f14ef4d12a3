"""Connect 4x4, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.connect4x4`` (every rule, in words: docs/rules/connect4x4.md),
with what the platform asks of them: the standings ``GameFinished`` carries
(``standings``), whose clock runs (``timing``) and how replay tools rebuild commands
(``replay``). This module adds the seat range, the event codec, the bots and the proto
service. It is registered under ``parlor.game_types`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.connect4x4.v1 import connect4x4_pb2
from parlor.gamehost.games import GameType, on_table, opened
from parlor.gamehost.seating import Seated, Table
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4 import replay
from parlor.rules.connect4x4.contract import ENGINE
from parlor.rules.connect4x4.standings import standings as standings  # tests read it here
from parlor.rules.connect4x4.timing import Timing
from parlor.services.connect4x4.codec import Codec, Event

CATEGORY = ENGINE.name  # "connect4x4"
MIN_SEATS, MAX_SEATS = ENGINE.min_seats, ENGINE.max_seats
SERVICE_NAME = connect4x4_pb2.DESCRIPTOR.services_by_name["Connect4x4Service"].full_name


def rules() -> Seated[c4.State, c4.Command, c4.Event]:
    return Seated(c4.decider, MIN_SEATS, MAX_SEATS, standings, Timing())


GAME: GameType[Table[c4.State], Any, Event] = GameType(
    CATEGORY,
    rules(),
    Codec(),
    on_table(replay.command_of),
    opened(replay.create_of),
    bots=("random", "greedy", "strong"),
    service=SERVICE_NAME,
    engine=ENGINE,
    rules_page="docs/rules/connect4x4.md",
    default_time_control=TimeControl.fischer(300, 3),
    time_controls=(
        TimeControl.per_move(30),
        TimeControl.fischer(180, 2),
        TimeControl.fischer(300, 3),
        TimeControl.correspondence(days=2),
    ),
)
