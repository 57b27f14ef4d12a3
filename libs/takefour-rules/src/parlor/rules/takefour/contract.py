"""Take Four under the platform's game contract (``parlor.core.game.GameContract``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parlor.core.game import GameContract, Result, Viewer
from parlor.rules import takefour as tf
from parlor.rules.takefour.standings import finish_reason
from parlor.rules.takefour.state import MAX_PLAYERS, MIN_PLAYERS, Phase
from parlor.rules.takefour.view import SeenEvent


class TakeFourEngine:
    """Everyone plays at once; hands, grids and the bag are secret until the game is over.

    Between rounds no seat is to move: the platform deals (``StartRound`` with a shuffled
    bag, the game's one chance step: ``chance``). Calls in auto mode carry the dictionary's
    verdicts, which the service fills in (``attach_verdicts``); ``legal_moves`` lists them
    without.
    """

    name = "takefour"
    decider = tf.TAKE_FOUR
    State = tf.TakeFourState
    Command: Any = tf.TakeFourCommand
    Event: Any = tf.TakeFourEvent
    Config = tf.TakeFourConfig
    min_seats: int = MIN_PLAYERS
    max_seats: int = MAX_PLAYERS

    def view(self, state: tf.TakeFourState, viewer: Viewer) -> tf.TakeFourView:
        return tf.view(state, viewer)

    def public_event(self, event: tf.TakeFourEvent, viewer: Viewer) -> SeenEvent:
        return tf.public_event(event, viewer)

    def result(self, state: tf.TakeFourState) -> Result | None:
        found = tf.TAKE_FOUR.result(state)
        if found is None:
            return None
        return Result(finish_reason(state), found.winners, found.totals)

    def legal_moves(self, state: tf.TakeFourState, seat: int) -> Sequence[tf.TakeFourCommand]:
        return tf.legal_moves(state, seat)

    def to_move(self, state: tf.TakeFourState) -> tuple[int, ...]:
        return tuple(range(len(state.players))) if state.phase is Phase.PLAYING else ()

    def is_terminal(self, state: tf.TakeFourState) -> bool:
        return tf.TAKE_FOUR.is_terminal(state)


ENGINE: GameContract[tf.TakeFourState, tf.TakeFourCommand, tf.TakeFourEvent] = TakeFourEngine()


@dataclass(frozen=True)
class Deal:
    """Take Four's chance step: round ``number`` dealt from an order of every tile id
    (``size`` of them), which the platform draws (``parlor.gamehost.record.chance``)."""

    number: int
    size: int
    name: str = "round"

    def command(self, order: tuple[int, ...]) -> tf.StartRound:
        return tf.StartRound(order)


def chance(state: tf.TakeFourState) -> Deal | None:
    """The next round is dealt right after the last one is scored (or the game created): its
    bag order drawn by the platform, under a name and number naming the round, so the call
    that scored it, a retry, a bot runner or another replica may all try, and the round
    starts once."""
    if state.phase is not Phase.BETWEEN_ROUNDS:
        return None
    return Deal(state.round + 1, state.config.tiles.size)
