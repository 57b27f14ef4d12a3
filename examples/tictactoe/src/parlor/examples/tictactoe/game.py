"""Tic-tac-toe, declared once: what the platform needs to know of the game.

Registered under ``parlor.game_types`` by this package's pyproject.toml, so it is on the
platform only where ``parlor-example-tictactoe`` is installed.
"""

from __future__ import annotations

from typing import Any

from parlor.examples.tictactoe import rules as ttt
from parlor.examples.tictactoe.codec import Codec, Event
from parlor.gamehost.games import GameType, on_table, opened
from parlor.gamehost.seating import Seated, Table
from parlor.tictactoe.v1 import tictactoe_pb2

ENGINE = ttt.ENGINE
SERVICE_NAME = tictactoe_pb2.DESCRIPTOR.services_by_name["TicTacToeService"].full_name


def rules() -> Seated[ttt.State, ttt.Command, ttt.Event]:
    return Seated(ENGINE.decider, ENGINE.min_seats, ENGINE.max_seats, ttt.standings)


GAME: GameType[Table[ttt.State], Any, Event] = GameType(
    ENGINE.name,
    rules(),
    Codec(),
    on_table(ttt.command_of),
    opened(ttt.create_of),
    bots=("random",),
    service=SERVICE_NAME,
    engine=ENGINE,
    rules_page="examples/tictactoe/README.md",
)
