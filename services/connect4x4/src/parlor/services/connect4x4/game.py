"""Connect 4x4, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.connect4x4`` (every rule, in words: docs/rules/connect4x4.md);
this module adds what the platform needs: the seat range, the standings ``GameFinished``
carries, the event codec, the bots, the proto service and how replay tools rebuild
commands. It is registered under ``parlor.game_types`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.connect4x4.v1 import connect4x4_pb2
from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Seated, Standing, Table
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.contract import ENGINE
from parlor.services.connect4x4.codec import Codec, Event
from parlor.services.connect4x4.replay import command_of, create_of

CATEGORY = ENGINE.name  # "connect4x4"
MIN_SEATS, MAX_SEATS = ENGINE.min_seats, ENGINE.max_seats
SERVICE_NAME = connect4x4_pb2.DESCRIPTOR.services_by_name["Connect4x4Service"].full_name


def standings(state: c4.State) -> tuple[str, tuple[Standing, ...]]:
    """Winner first, everyone else second; a tie shares first place among the seats still
    playing, and seats that left (resigned or ran out of time) come second."""
    outcome = c4.result(state)
    assert outcome is not None, "standings are asked only of finished games"
    if outcome.winner is None:
        gone = state.resigned or (False,) * state.players
        return outcome.reason, tuple(
            Standing(2 if gone[seat] else 1) for seat in range(state.players)
        )
    return outcome.reason, tuple(
        Standing(1 if seat == outcome.winner else 2) for seat in range(state.players)
    )


class Timing:
    """Whose clock runs: the seat to move; a timeout is ``TimeOut`` (the seat leaves)."""

    idle = False

    def running(self, game: c4.State) -> tuple[int, ...]:
        return (game.turn,) if game.status is c4.Status.IN_PROGRESS else ()

    def timeout(self, game: c4.State, seat: int) -> c4.TimeOut:
        return c4.TimeOut(seat)

    def factor(self, game: c4.State, seat: int) -> int:
        return 1

    def out(self, game: c4.State, seat: int) -> bool:
        return bool(game.timed_out) and game.timed_out[seat]


def rules() -> Seated[c4.State, c4.Command, c4.Event]:
    return Seated(c4.decider, MIN_SEATS, MAX_SEATS, standings, Timing())


GAME: GameType[Table[c4.State], Any, Event] = GameType(
    CATEGORY,
    rules(),
    Codec(),
    command_of,
    create_of,
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
