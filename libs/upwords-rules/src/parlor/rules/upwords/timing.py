"""Upwords on the clock (``parlor.gamehost.clocks.Timing``): whose clock runs, what a
timeout is."""

from __future__ import annotations

from parlor.rules import upwords as uw


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
