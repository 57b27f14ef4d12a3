"""Upwords under the platform's game contract (``parlor.core.game.GameContract``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlor.core.errors import ParlorError
from parlor.core.game import GameContract, Result, Viewer
from parlor.rules import upwords as uw
from parlor.rules.upwords.game import MAX_PLAYERS, MIN_PLAYERS
from parlor.rules.upwords.state import Phase


class UpwordsEngine:
    """Racks, draws and the bag are secret: ``public_event`` keeps only the viewer's own."""

    name = "upwords"
    decider = uw.UPWORDS
    State = uw.UpwordsState
    Command: Any = uw.Command
    Event: Any = uw.Event
    Config = uw.UpwordsConfig
    min_seats: int = MIN_PLAYERS
    max_seats: int = MAX_PLAYERS

    def view(self, state: uw.UpwordsState, viewer: Viewer) -> uw.PlayerView:
        return uw.view(state, viewer)

    def public_event(self, event: uw.Event, viewer: Viewer) -> uw.Event:
        """The viewer's own rack and draws stay, everyone else's go; where an exchanged tile
        went in the bag is bag order, which no player may see, not even the exchanger."""
        seen = uw.event_for(event, viewer)
        if isinstance(seen, uw.TileExchanged) and seen.position is not None:
            seen = uw.TileExchanged(seen.seat, seen.returned, seen.drawn, None)
        return seen

    def result(self, state: uw.UpwordsState) -> Result | None:
        if state.phase is not Phase.ENDED:
            return None
        return Result(state.end_reason, state.winners, state.scores)

    def legal_moves(self, state: uw.UpwordsState, seat: int) -> Sequence[uw.Command]:
        """The seat's moves that need no word list: accept, pass, one exchange per letter.

        Plays come from the move generator with a lexicon (``movegen``, the bots'); a
        challenge needs the dictionary's verdicts; resigning, always possible, is not listed.
        """
        if seat not in self.to_move(state):
            return []
        options: list[uw.Command] = [uw.AcceptPlay(seat), uw.Pass(seat)]
        options += [uw.Exchange(seat, tile, 0) for tile in sorted(set(state.racks[seat]))]
        return [move for move in options if _accepted(state, move)]

    def to_move(self, state: uw.UpwordsState) -> tuple[int, ...]:
        return (state.to_move,) if state.phase is Phase.PLAYING else ()

    def is_terminal(self, state: uw.UpwordsState) -> bool:
        return uw.UPWORDS.is_terminal(state)


def _accepted(state: uw.UpwordsState, command: uw.Command) -> bool:
    try:
        uw.UPWORDS.decide(state, command)
    except ParlorError:
        return False
    return True


ENGINE: GameContract[uw.UpwordsState, uw.Command, uw.Event] = UpwordsEngine()
