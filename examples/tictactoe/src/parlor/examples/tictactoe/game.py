"""Tic-tac-toe, declared once: what the platform needs to know of the game.

Registered under ``parlor.game_types`` by this package's pyproject.toml, and served
(``SERVING.component``, under ``parlor.services``), so it is on the platform only where
``parlor-example-tictactoe`` is installed.
"""

from __future__ import annotations

from typing import Any

from parlor.examples.tictactoe import rules as ttt
from parlor.examples.tictactoe.wire import WIRE, Codec, Event
from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Table
from parlor.gamehost.serving import Serving
from parlor.tictactoe.v1 import tictactoe_pb2

GAME: GameType[Table[ttt.State], Any, Event] = GameType(
    ttt.ENGINE,
    Codec(),
    ttt.standings,
    ttt,
    proto=tictactoe_pb2,
    bots=("random",),
    rules_page="examples/tictactoe/README.md",
    notation=ttt.record,
    hosting=ttt.GAME,
)
SERVING = Serving(GAME, WIRE)  # tic-tac-toe hides nothing
