"""Connect 4x4 for replay tools: the command each stored event came from, the game it opened.

``parlor verify`` decides every stored game again with today's rules, rebuilding each
player's command from the event it made; the game host adds the seats (``SeatsTaken``).
"""

from __future__ import annotations

from parlor.rules import connect4x4 as c4


def command_of(game: c4.State, event: object) -> c4.Command | None:
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


def create_of(created: object) -> c4.CreateGame:
    """The create command of the game's first event of the rules (its config)."""
    if not isinstance(created, c4.GameCreated):
        raise ValueError("a Connect 4x4 game's rules start with GameCreated")
    return c4.CreateGame(created.config)
