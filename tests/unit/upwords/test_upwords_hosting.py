"""Upwords as the platform hosts it: its create and its opening chance step, which the
platform draws (``parlor.rules.upwords.hosting``)."""

from __future__ import annotations

import random
from collections import Counter

from parlor.gamehost.record.chance import drawn
from parlor.rules import upwords as uw
from parlor.rules.upwords.hosting import GAME


def test_a_create_names_the_players_and_leaves_the_bags_to_the_opening() -> None:
    create = GAME.create(None, ("ada", "bot:best"), (False, True))
    assert create == uw.CreateGame(uw.UpwordsConfig(), ("ada", "bot:best"), (), ())


def test_the_opening_makes_both_bags_whole_shuffles_of_every_tile() -> None:
    step = GAME.opening(GAME.create(None, ("ada", "bob"), (False, False)))
    assert step.size == 2 * len(uw.full_bag())
    made = drawn(step)
    every = Counter(uw.full_bag())
    assert Counter(made.first_draw_order) == every
    assert Counter(made.bag_order) == every
    assert made.seats == ("ada", "bob")


def test_the_two_bags_are_the_relative_orders_of_the_two_halves_of_one_order() -> None:
    bag = uw.full_bag()
    step = GAME.opening(GAME.create(None, ("ada", "bob"), (False, False)))
    order = list(range(step.size))
    random.Random(7).shuffle(order)
    made = step.command(tuple(order))
    assert made.first_draw_order == tuple(bag[i] for i in order if i < len(bag))
    assert made.bag_order == tuple(bag[i - len(bag)] for i in order if i >= len(bag))
    identity = step.command(tuple(range(step.size)))
    assert identity.first_draw_order == bag == identity.bag_order
