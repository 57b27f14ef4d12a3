"""Connect 4x4 for replay tools: the command each stored event came from, the game it opened."""

from __future__ import annotations

from collections.abc import Sequence

from parlor.gamehost.seating import OpenTable, SeatsTaken, Table
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.codec import Event


def command_of(state: Table[c4.State], event: Event) -> c4.Command | None:
    """A drop or a resignation was a player's command; everything else follows from one."""
    match event:
        case c4.CheckerDropped(seat, column, side, _):
            return c4.DropChecker(seat, column, side)
        case c4.BlockerDropped(seat, column, _, _):
            return c4.DropBlocker(seat, column)
        case c4.PlayerResigned(seat):
            return c4.Resign(seat)
        case c4.PlayerTimedOut(seat):
            return c4.TimeOut(seat)
    return None


def create_of(events: Sequence[Event]) -> OpenTable[c4.CreateGame]:
    """The seats and config the game was opened with, as the first two stored events say."""
    seats, created = events[0], events[1]
    if not isinstance(seats, SeatsTaken) or not isinstance(created, c4.GameCreated):
        raise ValueError("a Connect 4x4 game starts with SeatsTaken then GameCreated")
    return OpenTable(seats.seats, c4.CreateGame(created.config), seats.time_control, seats.matched)
