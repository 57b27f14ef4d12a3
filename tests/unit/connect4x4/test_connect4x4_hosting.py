"""Connect 4x4 as the platform hosts it: its create and its bots as pure strategies
(``parlor.rules.connect4x4.hosting``)."""

from __future__ import annotations

import pickle
import random

import pytest

from parlor.core.errors import InvalidArgument
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.hosting import GAME

SEATS = ("ada", "bob", "cy")


def test_a_create_plays_as_many_players_as_seats_unless_the_config_says_otherwise() -> None:
    assert GAME.create(None, SEATS, (False,) * 3) == c4.CreateGame(c4.Config(players=3))
    unnamed = c4.Config(players=0, first_seat=1)
    assert GAME.create(unnamed, SEATS, (False,) * 3).config == c4.Config(players=3, first_seat=1)
    with pytest.raises(InvalidArgument) as refused:
        GAME.create(c4.Config(players=2), SEATS, (False,) * 3)
    assert refused.value.reason == "INVALID_PLAYER_COUNT"
    assert GAME.opening(GAME.create(None, SEATS, (False,) * 3)) is None


def test_a_bot_is_a_picklable_pure_strategy_of_the_state() -> None:
    state = c4.decider.initial_state()
    for event in c4.decider.decide(state, GAME.create(None, ("ada", "bob"), (False, False))):
        state = c4.decider.evolve(state, event)
    for level in ("random", "greedy", "strong", ""):
        strategy = pickle.loads(pickle.dumps(GAME.bot(level)))  # as the bot workers get it
        move = strategy(state, 0, random.Random(1))
        assert move in c4.legal_moves(state)
        assert move == strategy(state, 0, random.Random(1))  # the seed decides, nothing else
