"""Upwords on the clock (``parlor.gamehost.clocks.Timing``): the seat to move's clock runs;
a timeout is ``TimeOut`` (the seat drops out)."""

from __future__ import annotations

from parlor.core.game import TurnTiming
from parlor.rules import upwords as uw
from parlor.rules.upwords.contract import ENGINE

TIMING: TurnTiming[uw.UpwordsState, uw.TimeOut] = TurnTiming(
    ENGINE, uw.TimeOut, uw.UpwordsState.is_out
)
