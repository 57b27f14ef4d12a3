"""Weighed results: what scoring uses to count a result against a throwaway identity less."""

from __future__ import annotations

import pytest

from parlor.core.errors import InvalidArgument
from parlor.rating import Rating, apply_game, apply_weighted_game

RATINGS = {"ann": Rating(1600.0, 90.0, 0.06), "bob": Rating(1450.0, 200.0, 0.06)}
STANDINGS = [("ann", 1), ("bob", 2), ("cy", 2)]


def test_every_weight_one_is_apply_game_bit_for_bit() -> None:
    ones = {(a, b): 1.0 for a, _ in STANDINGS for b, _ in STANDINGS if a != b}
    assert apply_weighted_game(RATINGS, STANDINGS, ones) == apply_game(RATINGS, STANDINGS)
    assert apply_weighted_game(RATINGS, STANDINGS, {}) == apply_game(RATINGS, STANDINGS)


def test_a_result_of_weight_zero_is_left_out_and_a_player_with_none_is_unchanged() -> None:
    weights = {("ann", "cy"): 0.0, ("bob", "cy"): 0.0, ("cy", "ann"): 0.0, ("cy", "bob"): 0.0}
    after = apply_weighted_game(RATINGS, STANDINGS, weights)
    assert "cy" not in after
    # ann's and bob's game against each other only, each weighted 1/2 as in a 3-player game.
    alone = apply_weighted_game(RATINGS, [("ann", 1), ("bob", 2)], {})
    assert after["ann"] != alone["ann"]
    assert after["ann"].rating - RATINGS["ann"].rating < alone["ann"].rating - RATINGS["ann"].rating


@pytest.mark.parametrize("weight", [-0.1, 1.5, float("nan")])
def test_a_weight_outside_zero_to_one_is_refused(weight: float) -> None:
    with pytest.raises(InvalidArgument) as refused:
        apply_weighted_game(RATINGS, STANDINGS, {("ann", "bob"): weight})
    assert refused.value.reason == "BAD_WEIGHT"
