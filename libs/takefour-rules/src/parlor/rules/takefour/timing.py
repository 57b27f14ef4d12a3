"""Take Four on the clock (``parlor.gamehost.table.clocks.Timing``): idle clocks, no turns."""

from __future__ import annotations

from parlor.rules import takefour as tf
from parlor.rules.takefour.rules import TIMEOUT

FORFEIT_LIMITS = 3
"""An idle seat forfeits once this many limits have passed since its last action."""


class Timing:
    """No turns: every seat still racing has an idle clock, restarted by its own actions.
    Past one limit it is marked idle; past three (from its last action) it forfeits."""

    idle = True

    def running(self, game: tf.TakeFourState) -> tuple[int, ...]:
        if game.phase is not tf.Phase.PLAYING:
            return ()
        return tuple(seat for seat, p in enumerate(game.players) if not p.forfeited)

    def timeout(self, game: tf.TakeFourState, seat: int) -> tf.TakeFourCommand:
        if game.players[seat].idle:
            return tf.Forfeit(seat, "TIMEOUT")
        return tf.MarkIdle(seat)

    def timeout_seat(self, command: object) -> int | None:
        """``MarkIdle``, or a forfeit on time (``TIMEOUT``; one that left is no timeout)."""
        if isinstance(command, tf.MarkIdle):
            return command.seat
        if isinstance(command, tf.Forfeit) and command.reason == TIMEOUT:
            return command.seat
        return None

    def factor(self, game: tf.TakeFourState, seat: int) -> int:
        idle = seat < len(game.players) and game.players[seat].idle
        return FORFEIT_LIMITS if idle else 1

    def out(self, game: tf.TakeFourState, seat: int) -> bool:
        """Forfeited for running out of time; a seat that left is out of the race but did
        not time out (its standing is not marked ``timed_out``)."""
        return seat < len(game.players) and game.players[seat].timed_out
