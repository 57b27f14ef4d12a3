"""Upwords, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.upwords`` (every rule, in words: docs/rules/upwords.md),
with what the platform asks of them: the standings ``GameFinished`` carries
(``standings``), whose clock runs (``timing``) and how replay tools rebuild commands
(``replay``). This module adds the seat range, the event codec and what of it may be
published (racks and the bag never are), the bots and the proto service. It is
registered under ``parlor.game_types`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.gamehost.games import GameType, on_table, opened
from parlor.gamehost.seating import Seated, Table
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import upwords as uw
from parlor.rules.upwords import replay
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.standings import standings as standings  # the component's too
from parlor.rules.upwords.timing import Timing
from parlor.services.upwords.codec import Codec, Event, public
from parlor.upwords.v1 import upwords_pb2

CATEGORY = ENGINE.name  # "upwords"
MIN_SEATS, MAX_SEATS = ENGINE.min_seats, ENGINE.max_seats
SERVICE_NAME = upwords_pb2.DESCRIPTOR.services_by_name["UpwordsService"].full_name


def rules() -> Seated[uw.UpwordsState, uw.Command, uw.Event]:
    return Seated(uw.UPWORDS, MIN_SEATS, MAX_SEATS, standings, Timing())


GAME: GameType[Table[uw.UpwordsState], Any, Event] = GameType(
    CATEGORY,
    rules(),
    Codec(),
    on_table(replay.command_of),
    opened(replay.create_of),
    bots=("random", "best", "best"),
    public=public,
    service=SERVICE_NAME,
    engine=ENGINE,
    rules_page="docs/rules/upwords.md",
    default_time_control=TimeControl.fischer(600, 5),
    time_controls=(
        TimeControl.per_move(90),
        TimeControl.fischer(600, 5),
        TimeControl.fischer(1200, 10),
        TimeControl.correspondence(days=2),
    ),
)
