"""Upwords, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.upwords`` (every rule, in words: docs/rules/upwords.md);
this module adds what the platform needs: the seat range, the standings ``GameFinished``
carries, the event codec and what of it may be published (racks and the bag never are),
the bots, the proto service and how replay tools rebuild commands. It is registered
under ``parlor.game_types`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.gamehost.games import GameType
from parlor.gamehost.seating import Seated, Standing, Table
from parlor.gamehost.timecontrol import TimeControl
from parlor.rules import upwords as uw
from parlor.rules.upwords.contract import ENGINE
from parlor.services.upwords.codec import Codec, Event, public
from parlor.services.upwords.replay import command_of, create_of
from parlor.upwords.v1 import upwords_pb2

CATEGORY = ENGINE.name  # "upwords"
MIN_SEATS, MAX_SEATS = ENGINE.min_seats, ENGINE.max_seats
SERVICE_NAME = upwords_pb2.DESCRIPTOR.services_by_name["UpwordsService"].full_name


def standings(state: uw.UpwordsState) -> tuple[str, tuple[Standing, ...]]:
    """Winners first; the others by final score, behind every winner (a resigner never wins)."""
    scores = state.scores
    winners = set(state.winners)
    ranked: list[Standing] = []
    for seat, score in enumerate(scores):
        if seat in winners:
            ranked.append(Standing(1, score))
            continue
        ahead = sum(1 for other in range(len(scores)) if other in winners or scores[other] > score)
        ranked.append(Standing(1 + ahead, score))
    return state.end_reason, tuple(ranked)


class Timing:
    """Whose clock runs: the seat to move; a timeout is ``TimeOut`` (the seat drops out)."""

    idle = False

    def running(self, game: uw.UpwordsState) -> tuple[int, ...]:
        return (game.to_move,) if game.phase is uw.Phase.PLAYING else ()

    def timeout(self, game: uw.UpwordsState, seat: int) -> uw.TimeOut:
        return uw.TimeOut(seat)

    def factor(self, game: uw.UpwordsState, seat: int) -> int:
        return 1

    def out(self, game: uw.UpwordsState, seat: int) -> bool:
        return game.is_out(seat)


def rules() -> Seated[uw.UpwordsState, uw.Command, uw.Event]:
    return Seated(uw.UPWORDS, MIN_SEATS, MAX_SEATS, standings, Timing())


GAME: GameType[Table[uw.UpwordsState], Any, Event] = GameType(
    CATEGORY,
    rules(),
    Codec(),
    command_of,
    create_of,
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
