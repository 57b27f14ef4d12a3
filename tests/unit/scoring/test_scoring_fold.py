"""Scoring's fold: ratings and records after each game, the same live and rebuilt."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.rating import Rating, apply_game, idle
from parlor.services.scoring.ratings import fold, score_game
from parlor.services.scoring.sheet import FinishedGame, SeatResult

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
WEEK = timedelta(days=7)


def game(position: int, *seats: tuple[str, int], score: int = 0, at: datetime = T0) -> FinishedGame:
    return FinishedGame(
        stream_id=f"connect4x4-g{position}",
        game_type="connect4x4",
        game_id=f"g{position}",
        position=position,
        finished_at=at,
        reason="FOUR_IN_A_LINE",
        results=tuple(
            SeatResult(i, p, p.title(), rank, score) for i, (p, rank) in enumerate(seats)
        ),
    )


def test_two_player_game_is_plain_glicko2_bit_for_bit() -> None:
    after = score_game({}, game(1, ("ann", 1), ("bob", 2)), WEEK)
    expected = apply_game({}, [("ann", 1), ("bob", 2)])
    assert after["ann"].rating == expected["ann"]
    assert after["bob"].rating == expected["bob"]
    assert (after["ann"].record.wins, after["bob"].record.losses) == (1, 1)


def test_bots_count_in_records_but_are_never_rated() -> None:
    after = score_game({}, game(1, ("bot:greedy", 2), ("ann", 1), ("bot:greedy", 2)), WEEK)
    assert list(after) == ["ann"]
    assert after["ann"].rating == Rating()
    assert not after["ann"].rated
    assert after["ann"].record.wins == 1


def test_bots_are_left_out_of_a_rated_game_between_humans() -> None:
    after = score_game({}, game(1, ("ann", 1), ("bot:random", 3), ("bob", 2)), WEEK)
    expected = apply_game({}, [("ann", 1), ("bob", 2)])
    assert after["bob"].rating == expected["bob"]
    assert after["bob"].record.losses == 1


def test_a_player_in_two_seats_counts_once_with_their_best_seat() -> None:
    after = score_game({}, game(1, ("ann", 2), ("bob", 1), ("ann", 3)), WEEK)
    assert after["ann"].record.games == 1
    assert after["ann"].rating == apply_game({}, [("ann", 2), ("bob", 1)])["ann"]


def test_idle_weeks_widen_rd_before_the_next_game() -> None:
    first = score_game({}, game(1, ("ann", 1), ("bob", 2)), WEEK)
    later = T0 + 3 * WEEK
    second = score_game(first, game(2, ("ann", 1), ("bob", 2), at=later), WEEK)
    aged = {p: idle(first[p].rating, 3) for p in ("ann", "bob")}
    assert second["ann"].rating == apply_game(aged, [("ann", 1), ("bob", 2)])["ann"]
    assert second["ann"].last_played == later


def test_scores_add_up_per_player() -> None:
    scores = fold(
        [game(1, ("ann", 1), ("bob", 2), score=30), game(2, ("ann", 2), ("bob", 1), score=5)], WEEK
    )
    assert scores[("connect4x4", "ann")].total_score == 35


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_fold_applies_games_by_position_whatever_order_they_arrive_in(seed: int) -> None:
    rng = random.Random(seed)
    people = ["ann", "bob", "cy", "di", "ed"]
    games = []
    for position in range(1, 15):
        chosen = rng.sample(people, rng.randint(2, 4))
        seats = [(p, rng.randint(1, 3)) for p in chosen]
        games.append(game(position, *seats, at=T0 + timedelta(days=position)))
    shuffled = games[:]
    rng.shuffle(shuffled)
    assert fold(shuffled, WEEK) == fold(games, WEEK)


def test_an_aborted_game_is_neither_rated_nor_recorded() -> None:
    from dataclasses import replace

    aborted = replace(game(1, ("ann", 1), ("bob", 1)), reason="ABORTED")
    assert score_game({}, aborted, WEEK) == {}
    table = fold([aborted, game(2, ("ann", 1), ("bob", 2))], WEEK)
    assert table[("connect4x4", "ann")].record.wins == 1
    assert table[("connect4x4", "ann")].record.losses == 0


def test_a_timeout_is_rated_as_the_loss_its_rank_says() -> None:
    timed_out = replace_reason(game(1, ("ann", 1), ("bob", 2)), "TIMEOUT")
    after = score_game({}, timed_out, WEEK)
    assert after["bob"].record.losses == 1
    assert after["bob"].rated
    assert after["bob"].rating.rating < Rating().rating


def replace_reason(finished: FinishedGame, reason: str) -> FinishedGame:
    from dataclasses import replace

    return replace(finished, reason=reason)
