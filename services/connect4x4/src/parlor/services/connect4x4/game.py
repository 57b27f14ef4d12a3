"""Connect 4x4, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.connect4x4`` (every rule, in words: docs/rules/connect4x4.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, whose clock runs
(``timing``), how replay tools rebuild commands (``replay``), how a game is created and how
its bots play (``hosting``). This module adds the
event codec, the bots, the proto and the time controls, and how it is served (``SERVING``:
its servicer built from it and its wire). It is registered under ``parlor.game_types`` and
its component (``SERVING.component``) under ``parlor.services`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.connect4x4.v1 import connect4x4_pb2
from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Table
from parlor.gamehost.serving import Serving
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4 import hosting, replay
from parlor.rules.connect4x4.contract import ENGINE
from parlor.rules.connect4x4.standings import standings as standings  # tests read it here
from parlor.rules.connect4x4.timing import TIMING
from parlor.services.connect4x4.wire import WIRE, Codec, Event, config_of

GAME: GameType[Table[c4.State], Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    TIMING,
    connect4x4_pb2,
    bots=("random", "greedy", "strong"),
    rules_page="docs/rules/connect4x4.md",
    departures=(connect4x4_pb2.PlayerResigned, connect4x4_pb2.PlayerTimedOut),
    notation=c4.record,
    hosting=hosting.GAME,
    config_of=config_of,
    default_time_control=TimeControl.fischer(300, 3),
    time_controls=(
        TimeControl.per_move(30),
        TimeControl.fischer(180, 2),
        TimeControl.fischer(300, 3),
        TimeControl.correspondence(days=2),
    ),
)
rules = GAME.rules  # the seated rules, as tests and tools fold a stream with
SERVING = Serving(GAME, WIRE)  # Connect 4x4 hides nothing
