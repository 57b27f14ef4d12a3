"""Glicko-2 and its multi-player generalisation, one test per rule."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.core.errors import InvalidArgument
from parlor.rating import (
    Outcome,
    Rating,
    Record,
    Result,
    apply_game,
    elapsed_periods,
    idle,
    leaderboard,
    outcomes,
    rate,
    tally_game,
)
from parlor.rating.portable import exp, ln

PAPER_PLAYER = Rating(1500.0, 200.0, 0.06)
PAPER_RESULTS = [
    Result(Rating(1400.0, 30.0), 1.0),
    Result(Rating(1550.0, 100.0), 0.0),
    Result(Rating(1700.0, 300.0), 0.0),
]


def test_glicko2_paper_example() -> None:
    after = rate(PAPER_PLAYER, PAPER_RESULTS, tau=0.5)
    # The paper prints 1464.06 after rounding mu' to -0.2069; unrounded it is 1464.0507.
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_glicko2_paper_example_intermediate_scale() -> None:
    after = rate(PAPER_PLAYER, PAPER_RESULTS)
    assert (after.rating - 1500.0) / 173.7178 == pytest.approx(-0.2069, abs=0.0001)
    assert after.rd / 173.7178 == pytest.approx(0.8722, abs=0.0001)


def test_new_player_defaults_are_1500_350_006() -> None:
    assert Rating() == Rating(1500.0, 350.0, 0.06)


def test_no_games_in_a_period_only_grows_rd() -> None:
    after = rate(PAPER_PLAYER, [])
    phi = 200.0 / 173.7178
    assert after.rating == PAPER_PLAYER.rating
    assert after.volatility == PAPER_PLAYER.volatility
    assert after.rd == pytest.approx(173.7178 * math.sqrt(phi * phi + 0.06 * 0.06))


def test_a_certain_outcome_carries_no_information() -> None:
    player = Rating(1500.0, 100.0)
    after = rate(player, [Result(Rating(1e6, 30.0), 0.0)])
    assert after == rate(player, [])


def test_rd_grows_with_idle_periods() -> None:
    player = Rating(1700.0, 60.0, 0.06)
    rds = [idle(player, periods).rd for periods in (0, 1, 5, 20)]
    assert rds == sorted(rds)
    assert rds[0] == 60.0
    assert rds[1] < rds[2] < rds[3]
    assert idle(player, 5).rating == 1700.0


def test_idle_rd_never_exceeds_a_newcomers() -> None:
    assert idle(Rating(1600.0, 300.0, 0.06), 10_000).rd == 350.0


def test_idle_periods_compose() -> None:
    player = Rating(1600.0, 80.0, 0.06)
    assert idle(idle(player, 2), 3).rd == pytest.approx(idle(player, 5).rd, rel=1e-12)


def test_elapsed_periods_count_whole_periods() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    day = timedelta(days=1)
    assert elapsed_periods(start, start + timedelta(days=3, hours=23), day) == 3
    assert elapsed_periods(start, start, day) == 0
    assert elapsed_periods(start + day, start, day) == 0


def test_multiplayer_generalisation_reduces_to_glicko2_for_two_players() -> None:
    ann, bob = Rating(1620.0, 80.0, 0.058), Rating(1480.0, 190.0, 0.061)
    after = apply_game({"ann": ann, "bob": bob}, [("bob", 1), ("ann", 2)])
    assert after["bob"] == rate(bob, [Result(ann, 1.0)])
    assert after["ann"] == rate(ann, [Result(bob, 0.0)])


def test_multiplayer_game_is_all_pairs_weighted_one_over_n_minus_one() -> None:
    ratings = {p: Rating(1400.0 + 50 * i, 100.0 + 20 * i) for i, p in enumerate("abcd")}
    after = apply_game(ratings, [("a", 2), ("b", 1), ("c", 3), ("d", 2)])
    expected_a = rate(
        ratings["a"],
        [
            Result(ratings["b"], 0.0, 1 / 3),
            Result(ratings["d"], 0.5, 1 / 3),
            Result(ratings["c"], 1.0, 1 / 3),
        ],
    )
    assert after["a"] == expected_a


def test_winning_against_equal_opponents_moves_the_same_whatever_the_table_size() -> None:
    two = apply_game({}, [("w", 1), ("x", 2)])["w"]
    six = apply_game({}, [("w", 1)] + [(f"x{i}", 2) for i in range(5)])["w"]
    assert six.rating == pytest.approx(two.rating, rel=1e-12)


def test_draws_leave_equal_players_where_they_were() -> None:
    after = apply_game({}, [("ann", 1), ("bob", 1)])
    assert after["ann"].rating == pytest.approx(1500.0, abs=1e-9)
    assert after["bob"] == after["ann"]
    assert after["ann"].rd < 350.0


def test_draws_pull_unequal_players_together() -> None:
    strong, weak = Rating(1800.0, 80.0), Rating(1400.0, 80.0)
    after = apply_game({"s": strong, "w": weak}, [("s", 1), ("w", 1)])
    assert after["s"].rating < 1800.0
    assert after["w"].rating > 1400.0


def test_winner_gains_and_loser_loses() -> None:
    after = apply_game({}, [("ann", 2), ("bob", 1), ("cy", 3)])
    assert after["bob"].rating > 1500.0 > after["cy"].rating
    assert after["ann"].rating == pytest.approx(1500.0, abs=1e-9)


def test_apply_game_ignores_the_order_standings_are_listed_in() -> None:
    ratings = {"a": Rating(1510.0, 90.0), "b": Rating(1490.0, 200.0), "c": Rating(1700.0, 40.0)}
    one = apply_game(ratings, [("a", 1), ("b", 2), ("c", 2)])
    other = apply_game(ratings, [("c", 2), ("a", 1), ("b", 2)])
    assert one == other


@st.composite
def histories(draw: st.DrawFn) -> list[list[tuple[str, int]]]:
    players = [f"p{i}" for i in range(10)]
    games = []
    for _ in range(draw(st.integers(1, 30))):
        n = draw(st.integers(2, 8))
        table = draw(st.permutations(players))[:n]
        games.append([(p, draw(st.integers(1, n))) for p in table])
    return games


def _rebuild(history: list[list[tuple[str, int]]]) -> tuple[dict[str, Rating], dict[str, Record]]:
    ratings: dict[str, Rating] = {}
    records: dict[str, Record] = {}
    for game in history:
        ratings.update(apply_game(ratings, game))
        records.update(tally_game(records, game))
    return ratings, records


# no deadline: it checks numbers, not time (294 ms for one history beside 3 test workers)
@settings(deadline=None)
@given(histories())
def test_rebuilding_from_the_same_history_gives_identical_numbers(
    history: list[list[tuple[str, int]]],
) -> None:
    live = _rebuild(history)
    rebuilt = _rebuild([list(game) for game in history])
    assert live == rebuilt
    # The same games with each table listed in another order: still the same bits.
    relisted = _rebuild([list(reversed(game)) for game in history])
    assert relisted == live
    for rating in live[0].values():
        assert math.isfinite(rating.rating)
        assert rating.rd > 0
        assert rating.volatility > 0


def test_rebuilding_gives_pinned_bits() -> None:
    # Bits pinned when written: a change of summation order or of exp/ln changes them.
    ratings, _ = _rebuild([[("a", 1), ("b", 2), ("c", 2)], [("b", 1), ("a", 2)]])
    assert ratings["a"].rating.hex() == "0x1.6cab1a5013d8fp+10"
    assert ratings["a"].rd.hex() == "0x1.feeeba3db9879p+7"
    assert ratings["a"].volatility.hex() == "0x1.eb871e6edbe0ap-5"
    assert ratings["b"].rating.hex() == "0x1.959ed87312a30p+10"


ratings_st = st.builds(
    Rating,
    st.floats(100.0, 3000.0),
    st.floats(30.0, 350.0),
    st.floats(0.01, 0.2),
)


@given(st.lists(ratings_st, min_size=2, max_size=8), st.data())
def test_a_sole_winner_never_loses_rating_and_a_sole_loser_never_gains(
    table: list[Rating], data: st.DataObject
) -> None:
    n = len(table)
    ranks = data.draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    standings = [(f"p{i}", rank) for i, rank in enumerate(ranks)]
    before = {f"p{i}": rating for i, rating in enumerate(table)}
    after = apply_game(before, standings)
    best, worst = min(ranks), max(ranks)
    for player, rank in standings:
        new, old = after[player], before[player]
        assert math.isfinite(new.rating)
        assert new.volatility > 0.0
        # RD after a game is below the pre-game RD grown by the new volatility (step 7).
        assert new.rd < math.hypot(old.rd, 173.7178 * new.volatility)
        if rank == best and ranks.count(best) == 1:
            assert new.rating >= old.rating
        if rank == worst and ranks.count(worst) == 1:
            assert new.rating <= old.rating


def test_outcomes_best_rank_wins_all_equal_is_a_draw() -> None:
    assert outcomes([("a", 1), ("b", 2)]) == {"a": Outcome.WIN, "b": Outcome.LOSS}
    assert outcomes([("a", 1), ("b", 1)]) == {"a": Outcome.DRAW, "b": Outcome.DRAW}
    shared = outcomes([("a", 1), ("b", 1), ("c", 3)])
    assert shared == {"a": Outcome.WIN, "b": Outcome.WIN, "c": Outcome.LOSS}


def test_records_count_games_wins_draws_losses() -> None:
    records: dict[str, Record] = {}
    for game in ([("a", 1), ("b", 2)], [("a", 1), ("b", 1)], [("b", 1), ("a", 2), ("c", 3)]):
        records.update(tally_game(records, game))
    assert records["a"] == Record(games=3, wins=1, draws=1, losses=1)
    assert records["b"] == Record(games=3, wins=1, draws=1, losses=1)
    assert records["c"] == Record(games=1, wins=0, draws=0, losses=1)


def test_conservative_score_is_rating_minus_two_rd() -> None:
    assert Rating(1600.0, 50.0).conservative == 1500.0


def test_leaderboard_ranks_by_conservative_score_then_player_id() -> None:
    ratings = {
        "lucky-newcomer": Rating(1700.0, 300.0),
        "steady": Rating(1600.0, 40.0),
        "b-twin": Rating(1500.0, 50.0),
        "a-twin": Rating(1500.0, 50.0),
    }
    board = [player for player, _ in leaderboard(ratings)]
    assert board == ["steady", "a-twin", "b-twin", "lucky-newcomer"]
    assert [player for player, _ in leaderboard(ratings, limit=1)] == ["steady"]


@pytest.mark.parametrize(
    ("standings", "reason"),
    [
        ([("a", 1)], "BAD_PLAYER_COUNT"),
        ([(f"p{i}", 1) for i in range(9)], "BAD_PLAYER_COUNT"),
        ([("a", 1), ("a", 2)], "DUPLICATE_PLAYER"),
        ([("a", 0), ("b", 1)], "BAD_RANK"),
        ([("", 1), ("b", 1)], "BAD_PLAYER"),
    ],
)
def test_malformed_standings_are_invalid_arguments(
    standings: list[tuple[str, int]], reason: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        apply_game({}, standings)
    assert caught.value.reason == reason


def test_ratings_must_have_positive_rd_and_volatility() -> None:
    with pytest.raises(InvalidArgument):
        Rating(1500.0, 0.0)
    with pytest.raises(InvalidArgument):
        Rating(1500.0, 100.0, -0.1)
    with pytest.raises(InvalidArgument):
        Rating(math.nan)


def test_portable_exp_and_ln_agree_with_the_c_library_to_a_few_ulps() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        x = rng.uniform(-50.0, 50.0)
        assert exp(x) == pytest.approx(math.exp(x), rel=4e-16)
        y = rng.uniform(1e-9, 1e9)
        assert ln(y) == pytest.approx(math.log(y), rel=4e-16, abs=1e-300)
    assert exp(0.0) == 1.0
    assert ln(1.0) == 0.0
