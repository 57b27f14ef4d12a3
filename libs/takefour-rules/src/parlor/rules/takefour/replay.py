"""Take Four for replay tools: the command each stored event came from, the game it opened.

What the service decides and the rules cannot (the round's shuffle, the dictionary's
verdicts) is recorded in the events, so each rebuilt command carries it again:

- ``RoundStarted.bag`` is the service's shuffle: ``StartRound(bag)``;
- ``DoneCalled.accepted`` lists the checked words the dictionary accepted, so ``CallDone``
  gets a verdict for every word scoring reads (``words_to_check``): accepted or refused;
- a ``TakeFourCalled`` needs verdicts only in auto mode, where it exists only if every
  run of the caller's grid was accepted: each gets ``True``.

Deals, scores, the end and ``GameFinished`` follow from a command in the same decision.
A ``DoneCalled`` stored before verdicts were recorded rebuilds to nothing, and
``parlor verify`` reports it as ``NOT_DECIDED`` rather than guessing the dictionary.
"""

from __future__ import annotations

from parlor.rules import takefour as tf


def command_of(game: tf.TakeFourState, event: object) -> tf.TakeFourCommand | None:
    """The player's (or the service's) command behind ``event``; None if it follows from one."""
    match event:
        case tf.RoundStarted(_, bag):
            return tf.StartRound(bag)
        case tf.TilePlaced(seat, tile, x, y, letter):
            return tf.PlaceTile(seat, tile, x, y, letter)
        case tf.TileMoved(seat, from_x, from_y, to_x, to_y, letter):
            return tf.MoveTile(seat, from_x, from_y, to_x, to_y, letter)
        case tf.TileTakenBack(seat, x, y, _):
            return tf.TakeBackTile(seat, x, y)
        case tf.JokerSwapped(seat, x, y, tile, _):
            return tf.SwapJoker(seat, tile, x, y)
        case tf.TakeFourCalled(seat):
            checked = tf.TAKE_FOUR.words_to_check(game, tf.CallTakeFour(seat))
            return tf.CallTakeFour(seat, dict.fromkeys(checked, True))
        case tf.DealAgreed(seat):
            return tf.AgreeToDeal(seat)
        case tf.AgreementWithdrawn(seat):
            return tf.WithdrawAgreement(seat)
        case tf.SeatIdle(seat):
            return tf.MarkIdle(seat)
        case tf.SeatForfeited(seat, reason):
            return tf.Forfeit(seat, reason)
        case tf.DoneCalled(seat, accepted):
            if accepted is None:
                return None  # verdicts not recorded: nothing to decide the scoring from
            known = frozenset(accepted)
            checked = tf.TAKE_FOUR.words_to_check(game, tf.CallDone(seat))
            return tf.CallDone(seat, {word: word in known for word in checked})
    return None


def create_of(created: object) -> tf.CreateGame:
    """The config and engine seat names the game was opened with, from its ``GameCreated``."""
    if not isinstance(created, tf.GameCreated):
        raise ValueError("a Take Four game's rules start with GameCreated")
    return tf.CreateGame(created.config, created.seats)
