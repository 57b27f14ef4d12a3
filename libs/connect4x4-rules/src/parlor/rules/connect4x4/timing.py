"""Connect 4x4 on the clock (``parlor.gamehost.table.clocks.Timing``): the seat to move's clock
runs; a timeout is ``TimeOut`` (the seat leaves)."""

from __future__ import annotations

from parlor.core.game import TurnTiming
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.contract import ENGINE


def is_out(game: c4.State, seat: int) -> bool:
    return bool(game.timed_out) and game.timed_out[seat]


TIMING: TurnTiming[c4.State, c4.TimeOut] = TurnTiming(ENGINE, c4.TimeOut, is_out)
