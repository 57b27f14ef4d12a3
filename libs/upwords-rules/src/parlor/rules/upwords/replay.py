"""Upwords for replay tools: the command each stored event came from, the game it opened.

``parlor verify`` re-decides every stored game with today's rules. The rules are
pure, so what the service decided outside them is recorded in the events and
goes back into the rebuilt commands:

- the two bag shuffles of ``CreateGame``: the first-player draw (``first_draw``)
  and the deal (the racks, then the bag left, in ``GameCreated``);
- the dictionary's verdicts: a stored ``WordPlayed`` of an ``auto`` game was
  checked and found valid, every word; a challenge's verdicts are in its outcome
  (``PlayWithdrawn.invalid_words`` false, the pending play's other words true;
  ``ChallengeFailed``: every word true);
- where an exchanged tile went into the bag (``TileExchanged.position``).

In challenge mode a turn first closes the challenge window of the pending play
(``PlayAccepted`` and the player's refill) and then plays, passes or exchanges,
all in one decision. The rules decide that turn exactly as an ``AcceptPlay``
followed by the same turn (closing the window is the first thing every turn
does), and a lone ``PlayAccepted`` does not say which turn followed, so it is
rebuilt as ``AcceptPlay`` by the seat to move and the turn's own event as the
next command: every stored event is still compared with what the rules decide.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from parlor.rules import upwords as uw


def checked_words(game: uw.UpwordsState, words: Sequence[str]) -> Mapping[str, bool]:
    """The verdicts a stored play was decided with: every word valid in ``auto`` mode."""
    if game.config.word_checking is not uw.WordChecking.AUTO:
        return {}  # plays are taken unchecked; a challenge brings its own verdicts
    return dict.fromkeys(words, True)


def challenge_verdicts(game: uw.UpwordsState, invalid: Sequence[str]) -> Mapping[str, bool]:
    """The dictionary's answer on the pending play's words, as the challenge's outcome says."""
    refused = set(invalid)
    return {word: word not in refused for word in uw.pending_words(game)}


def command_of(game: uw.UpwordsState, event: object) -> uw.Command | None:
    """The command of a seat that made ``event``; None for what follows from one."""
    match event:
        case uw.WordPlayed(seat, placements, words, _, _):
            return uw.Play(seat, placements, checked_words(game, words))
        case uw.Passed(seat):
            return uw.Pass(seat)
        case uw.TileExchanged(seat, returned, _, position):
            if returned is None or position is None:
                return None  # a stripped copy: the store always holds the tile and place
            return uw.Exchange(seat, returned, position)
        case uw.PlayAccepted():
            return uw.AcceptPlay(game.to_move)
        case uw.ChallengeFailed(challenger, _):
            return uw.Challenge(challenger, challenge_verdicts(game, ()))
        case uw.PlayWithdrawn(challenger, _, invalid, _, _):
            return uw.Challenge(challenger, challenge_verdicts(game, invalid))
        case uw.PlayerResigned(seat):
            return uw.Resign(seat)
        case uw.PlayerTimedOut(seat):
            return uw.TimeOut(seat)
    return None


def first_draw_order(created: uw.GameCreated) -> tuple[str, ...]:
    """A bag the recorded first-player draw comes from: the drawn tiles, then the rest.

    The draw reads only the front of the bag, as many tiles as the rounds took;
    the tiles behind them are put back in a fixed order.
    """
    drawn = [tile for round_ in created.first_draw for _, tile in round_.draws]
    rest = Counter(uw.DISTRIBUTION) - Counter(drawn)
    return (*drawn, *sorted(rest.elements()))


def bag_order(created: uw.GameCreated) -> tuple[str, ...]:
    """The deal's shuffle: seat 0's rack, seat 1's, ..., then the bag left."""
    if created.racks is None or created.bag is None or None in created.racks:
        raise ValueError("a stored GameCreated holds every rack and the bag")
    return (*(tile for rack in created.racks if rack is not None for tile in rack), *created.bag)


def create_of(created: object) -> uw.CreateGame:
    """The config, seats and both shuffles the game was opened with, from its ``GameCreated``."""
    if not isinstance(created, uw.GameCreated):
        raise ValueError("an Upwords game's rules start with GameCreated")
    return uw.CreateGame(
        created.config, created.seats, first_draw_order(created), bag_order(created)
    )
