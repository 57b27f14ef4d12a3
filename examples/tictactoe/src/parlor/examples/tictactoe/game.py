"""Tic-tac-toe, declared once: what the platform needs to know of the game.

Registered under ``parlor.game_types`` by this package's pyproject.toml, so it is on the
platform only where ``parlor-example-tictactoe`` is installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlor.examples.tictactoe import rules as ttt
from parlor.examples.tictactoe.codec import Codec, Event
from parlor.gamehost.games import GameType
from parlor.gamehost.seating import OpenTable, Seated, SeatsTaken, Standing, Table
from parlor.tictactoe.v1 import tictactoe_pb2

ENGINE = ttt.ENGINE
SERVICE_NAME = tictactoe_pb2.DESCRIPTOR.services_by_name["TicTacToeService"].full_name


def standings(state: ttt.State) -> tuple[str, tuple[Standing, ...]]:
    """The winner first, the other second; a draw ranks both first."""
    outcome = ENGINE.result(state)
    assert outcome is not None, "standings are asked only of finished games"
    return outcome.reason, tuple(
        Standing(1 if not outcome.winners or seat in outcome.winners else 2) for seat in (0, 1)
    )


def command_of(state: Table[ttt.State], event: Event) -> ttt.Command | None:
    """A placed mark was a player's command; a win or a draw follows from it."""
    return ttt.Place(event.seat, event.square) if isinstance(event, ttt.MarkPlaced) else None


def create_of(events: Sequence[Event]) -> OpenTable[ttt.CreateGame]:
    seats, created = events[0], events[1]
    if not isinstance(seats, SeatsTaken) or not isinstance(created, ttt.GameCreated):
        raise ValueError("a tic-tac-toe game starts with SeatsTaken then GameCreated")
    return OpenTable(seats.seats, ttt.CreateGame(created.config))


def rules() -> Seated[ttt.State, ttt.Command, ttt.Event]:
    return Seated(ENGINE.decider, ENGINE.min_seats, ENGINE.max_seats, standings)


GAME: GameType[Table[ttt.State], Any, Event] = GameType(
    ENGINE.name,
    rules(),
    Codec(),
    command_of,
    create_of,
    bots=("random",),
    service=SERVICE_NAME,
    engine=ENGINE,
    rules_page="examples/tictactoe/README.md",
)
