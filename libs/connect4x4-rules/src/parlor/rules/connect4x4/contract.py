"""Connect 4x4 under the platform's game contract (``parlor.core.game.GameContract``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlor.core.game import GameContract, Result, Viewer
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.commands import MAX_PLAYERS, MIN_PLAYERS


class Connect4x4Engine:
    """Nothing is hidden in Connect 4x4: every viewer sees every event whole."""

    name = "connect4x4"
    decider = c4.decider
    State = c4.State
    Command: Any = c4.Command
    Event: Any = c4.Event
    Config = c4.Config
    min_seats: int = MIN_PLAYERS
    max_seats: int = MAX_PLAYERS

    def view(self, state: c4.State, viewer: Viewer) -> c4.GameView:
        return c4.view(state, viewer)

    def public_event(self, event: c4.Event, viewer: Viewer) -> c4.Event:
        return event

    def result(self, state: c4.State) -> Result | None:
        outcome = c4.result(state)
        if outcome is None:
            return None
        return Result(outcome.reason, () if outcome.winner is None else (outcome.winner,))

    def legal_moves(self, state: c4.State, seat: int) -> Sequence[c4.Command]:
        """The seat's drops when it is on turn (resigning, always possible, is not listed)."""
        return c4.legal_moves(state) if seat in self.to_move(state) else []

    def to_move(self, state: c4.State) -> tuple[int, ...]:
        return (state.turn,) if state.status is c4.Status.IN_PROGRESS else ()

    def is_terminal(self, state: c4.State) -> bool:
        return c4.is_terminal(state)


ENGINE: GameContract[c4.State, c4.Command, c4.Event] = Connect4x4Engine()
