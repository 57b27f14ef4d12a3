"""Random playouts: invariants hold after every event and replay gives the same state."""

from __future__ import annotations

import pytest
from kits.takefour import lenient_word, playout, tile_set

from parlor.rules.takefour import TAKE_FOUR, TakeFourConfig


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (5, 3), (8, 4)])
def test_random_playouts_in_honor_mode_keep_every_tile_and_replay_exactly(
    players: int, seed: int
) -> None:
    result = playout(players, TakeFourConfig(target=60), seed)
    assert TAKE_FOUR.is_terminal(result.final_state)
    outcome = TAKE_FOUR.result(result.final_state)
    assert outcome is not None
    assert min(outcome.totals) == min(result.final_state.totals)


@pytest.mark.parametrize(("players", "seed"), [(2, 5), (4, 6)])
def test_random_playouts_in_auto_mode_keep_every_tile_and_replay_exactly(
    players: int, seed: int
) -> None:
    # A small set, so random grids are small enough to be valid now and then.
    config = TakeFourConfig(tiles=tile_set("E6 A4 T4 S2", jokers=2), checking="auto", target=5)
    result = playout(players, config, seed, lenient_word)
    assert TAKE_FOUR.is_terminal(result.final_state)
    assert all(r.scores[r.done_seat] == 0 for r in result.final_state.results)
