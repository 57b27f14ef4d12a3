"""Upwords on the clock (``parlor.gamehost.table.clocks.Timing``): the seat to move's clock runs;
a timeout is ``TimeOut`` (the seat drops out)."""

from __future__ import annotations

from parlor.core.game import TurnTiming
from parlor.rules import upwords as uw
from parlor.rules.upwords.contract import ENGINE


def ran_out(state: uw.UpwordsState, seat: int) -> bool:
    """Whether ``seat`` ran out of time (what ``GameFinished`` and the clocks mark
    ``timed_out``). From rules 3 a seat that resigned and dropped out did not: rules 2 games
    counted it out of time too, and replay so."""
    if state.config.rules >= 3:
        return bool(state.out) and state.out[seat]
    return state.is_out(seat)


TIMING: TurnTiming[uw.UpwordsState, uw.TimeOut] = TurnTiming(ENGINE, uw.TimeOut, ran_out)
