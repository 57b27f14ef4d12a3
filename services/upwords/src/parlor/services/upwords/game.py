"""Upwords, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.upwords`` (every rule, in words: docs/rules/upwords.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, whose clock runs
(``timing``), how replay tools rebuild commands (``replay``) and how a game is created and
its bags drawn (``hosting``). This module adds the
event codec and what of it may be published (racks and the bag never are), the bots, the
proto and the time controls. It is registered under ``parlor.game_types`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Table
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import upwords as uw
from parlor.rules.upwords import hosting, record, replay
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.standings import standings as standings  # the component's too
from parlor.rules.upwords.timing import TIMING
from parlor.services.upwords.codec import Codec, Event, new_config, public
from parlor.upwords.v1 import upwords_pb2

GAME: GameType[Table[uw.UpwordsState], Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    TIMING,
    upwords_pb2,
    bots=("random", "best", "best"),
    public=public,
    rules_page="docs/rules/upwords.md",
    calls=("dictionary",),
    departures=(upwords_pb2.PlayerResigned, upwords_pb2.PlayerTimedOut),
    notation=record.export_game,
    hosting=hosting.GAME,
    config_of=new_config,
    create_attempts=3,  # practically never: the first-player draw ran out of tiles
    create_retry_reasons=frozenset({"DRAW_EXHAUSTED"}),
    default_time_control=TimeControl.fischer(600, 5),
    time_controls=(
        TimeControl.per_move(90),
        TimeControl.fischer(600, 5),
        TimeControl.fischer(1200, 10),
        TimeControl.correspondence(days=2),
    ),
)
