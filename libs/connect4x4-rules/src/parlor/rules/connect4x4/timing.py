"""Connect 4x4 on the clock (``parlor.gamehost.clocks.Timing``): whose clock runs, what a
timeout is."""

from __future__ import annotations

from parlor.rules import connect4x4 as c4


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
