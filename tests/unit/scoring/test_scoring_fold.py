"""Scoring's fold: ratings and records after each game, the same live and rebuilt."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.eventstore import Metadata, RecordedEvent
from parlor.rating import Rating, Record, apply_game, apply_weighted_game, idle
from parlor.services.scoring.ratings import (
    ESTABLISHED_OPPONENTS,
    PairHistory,
    PlayerScore,
    fold,
    score_game,
)
from parlor.services.scoring.sheet import FinishedGame, Moves, SeatResult, counted_as

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


STRONG = Rating(1700.0, 60.0, 0.06)
STEADY = Rating(1500.0, 80.0, 0.06)


def known(player: str, rating: Rating = STEADY, opponents: int = 10) -> PlayerScore:
    """An established player: a settled RD and many opponents met."""
    return PlayerScore(player, rating, True, Record(20, 10, 0, 10), 0, T0, opponents)


def score(before: dict[str, PlayerScore], finished: FinishedGame) -> dict[str, PlayerScore]:
    return score_game(before, finished, WEEK)[0]


def test_two_established_players_is_plain_glicko2_bit_for_bit() -> None:
    before = {"ann": known("ann", STRONG), "bob": known("bob")}
    after = score(before, game(1, ("ann", 1), ("bob", 2)))
    expected = apply_game({"ann": STRONG, "bob": STEADY}, [("ann", 1), ("bob", 2)])
    assert after["ann"].rating == expected["ann"]
    assert after["bob"].rating == expected["bob"]
    assert (after["ann"].record.wins, after["bob"].record.losses) == (11, 11)


def test_a_newcomer_learns_from_an_established_player_who_learns_nothing_from_them() -> None:
    after = score({"bob": known("bob")}, game(1, ("ann", 1), ("bob", 2)))
    assert after["ann"].rating == apply_game({"bob": STEADY}, [("ann", 1), ("bob", 2)])["ann"]
    assert after["ann"].rated
    assert after["ann"].provisional
    assert after["bob"].rating == STEADY
    assert (after["ann"].opponents, after["bob"].opponents) == (1, 11)


def test_two_fresh_identities_rate_nothing_but_their_records_count() -> None:
    after = score({}, game(1, ("ann", 1), ("bob", 2)))
    assert after["ann"].rating == after["bob"].rating == Rating()
    assert not after["ann"].rated
    assert after["ann"].provisional
    assert (after["ann"].record.wins, after["bob"].record.losses) == (1, 1)
    assert (after["ann"].opponents, after["bob"].opponents) == (1, 1)


def test_a_provisional_opponent_counts_for_the_share_of_people_they_have_met() -> None:
    before = {"ann": known("ann", Rating(), 0), "bob": known("bob", Rating(), 2)}
    after = score(before, game(1, ("ann", 1), ("bob", 2)))
    weights = {("ann", "bob"): 2 / ESTABLISHED_OPPONENTS, ("bob", "ann"): 0.0}
    expected = apply_weighted_game(
        {"ann": Rating(), "bob": Rating()}, [("ann", 1), ("bob", 2)], weights
    )
    assert after["ann"].rating == expected["ann"]
    assert after["bob"].rating == Rating()


def test_puppets_lift_nobody() -> None:
    """Six games against fresh identities that resign: the farmer's rating does not move."""
    puppets = [
        game(i, ("farmer", 1), (f"puppet{i}", 2), at=T0 + timedelta(seconds=i)) for i in range(1, 7)
    ]
    table = fold(puppets, WEEK).scores
    farmer = table[("connect4x4", "farmer")]
    assert farmer.rating == Rating()
    assert farmer.provisional
    assert (farmer.record.wins, farmer.opponents) == (6, 6)


def test_the_same_pair_counts_half_as_much_each_time_within_a_day() -> None:
    before = {"ann": known("ann"), "bob": known("bob")}
    first, met = score_game(before, game(1, ("ann", 1), ("bob", 2)), WEEK)
    assert met[("ann", "bob")].games == 1
    soon = T0 + timedelta(hours=1)
    second, met = score_game(first, game(2, ("ann", 1), ("bob", 2), at=soon), WEEK, met)
    half = {("ann", "bob"): 0.5, ("bob", "ann"): 0.5}
    ratings = {p: first[p].rating for p in ("ann", "bob")}
    expected = apply_weighted_game(ratings, [("ann", 1), ("bob", 2)], half)
    assert second["ann"].rating == expected["ann"]
    assert second["ann"].opponents == first["ann"].opponents  # bob was met before
    assert met[("ann", "bob")] == PairHistory(2, (T0, soon))
    next_day = T0 + timedelta(hours=25)
    third, _ = score_game(second, game(3, ("ann", 1), ("bob", 2), at=next_day), WEEK, met)
    full = apply_game({p: second[p].rating for p in ("ann", "bob")}, [("ann", 1), ("bob", 2)])
    assert third["ann"].rating == full["ann"]  # a day after the first, one earlier game


def test_a_game_a_person_left_after_one_move_rates_nobody_but_counts_in_records() -> None:
    before = {"ann": known("ann"), "bob": known("bob")}
    short = game(1, ("ann", 1), ("bob", 2))
    short = replace(
        short, results=(replace(short.results[0], moves=3), replace(short.results[1], moves=1))
    )
    after, met = score_game(before, short, WEEK)
    assert (after["ann"].rating, after["bob"].rating) == (STEADY, STEADY)
    assert (after["ann"].record.wins, after["bob"].record.losses) == (11, 11)
    assert met == {}
    assert after["ann"].opponents == 10  # nobody met in a game that rated nobody
    played = replace(short, results=tuple(replace(r, moves=2) for r in short.results))
    rated, _ = score_game(before, played, WEEK)
    assert (
        rated["ann"].rating
        == apply_game({"ann": STEADY, "bob": STEADY}, [("ann", 1), ("bob", 2)])["ann"]
    )


def stamped(seat: int | None, at: str) -> RecordedEvent:
    extra = {"clock_at": at} | ({} if seat is None else {"clock_seat": str(seat)})
    return RecordedEvent("g-1", 1, 1, "e", b"", 1, Metadata(extra=extra), T0)


def test_moves_are_counted_from_the_clock_stamps_leaving_out_the_command_that_ended_it() -> None:
    moves = Moves()
    for event in (
        stamped(None, "t0"),  # the game's creation: no acting seat
        stamped(0, "t1"),
        stamped(1, "t2"),
        stamped(0, "t3"),
        stamped(1, "t4"),  # seat 1 resigns: PlayerResigned, GameWon...
        stamped(None, "t4"),
    ):
        moves.add(event)
    finished = stamped(None, "t4")
    assert (moves.of(finished, 0), moves.of(finished, 1), moves.of(finished, 2)) == (2, 1, 0)
    # Ended by a timeout the sweeper fired later: every move counts.
    assert moves.of(stamped(None, "t9"), 1) == 2
    # An untimed game has no stamps: moves not known.
    untimed = Moves()
    untimed.add(RecordedEvent("g-1", 2, 2, "e", b"", 1, Metadata(), T0))
    assert untimed.of(finished, 0) is None


def test_bots_count_in_records_but_are_never_rated() -> None:
    after = score({}, game(1, ("bot:greedy", 2), ("ann", 1), ("bot:greedy", 2)))
    assert list(after) == ["ann"]
    assert after["ann"].rating == Rating()
    assert not after["ann"].rated
    assert after["ann"].record.wins == 1
    assert after["ann"].opponents == 0


def test_bots_are_left_out_of_a_rated_game_between_humans() -> None:
    before = {"ann": known("ann", STRONG), "bob": known("bob")}
    after = score(before, game(1, ("ann", 1), ("bot:random", 3), ("bob", 2)))
    expected = apply_game({"ann": STRONG, "bob": STEADY}, [("ann", 1), ("bob", 2)])
    assert after["bob"].rating == expected["bob"]
    assert after["bob"].record.losses == 11


def test_a_player_in_two_seats_counts_once_with_their_best_seat() -> None:
    before = {"ann": known("ann"), "bob": known("bob", STRONG)}
    after = score(before, game(1, ("ann", 2), ("bob", 1), ("ann", 3)))
    assert after["ann"].record.games == 21
    expected = apply_game({"ann": STEADY, "bob": STRONG}, [("ann", 2), ("bob", 1)])
    assert after["ann"].rating == expected["ann"]


def test_idle_weeks_widen_rd_before_the_next_game() -> None:
    first = score({"ann": known("ann"), "bob": known("bob")}, game(1, ("ann", 1), ("bob", 2)))
    later = T0 + 3 * WEEK
    second = score(first, game(2, ("ann", 1), ("bob", 2), at=later))
    aged = {p: idle(first[p].rating, 3) for p in ("ann", "bob")}
    assert second["ann"].rating == apply_game(aged, [("ann", 1), ("bob", 2)])["ann"]
    assert second["ann"].last_played == later


def test_scores_add_up_per_player() -> None:
    scores = fold(
        [game(1, ("ann", 1), ("bob", 2), score=30), game(2, ("ann", 2), ("bob", 1), score=5)], WEEK
    ).scores
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
    assert score_game({}, aborted, WEEK) == ({}, {})
    table = fold([aborted, game(2, ("ann", 1), ("bob", 2))], WEEK).scores
    assert table[("connect4x4", "ann")].record.wins == 1
    assert table[("connect4x4", "ann")].record.losses == 0


def test_a_timeout_is_rated_as_the_loss_its_rank_says() -> None:
    timed_out = replace_reason(game(1, ("ann", 1), ("bob", 2)), "TIMEOUT")
    after = score({"ann": known("ann"), "bob": known("bob")}, timed_out)
    assert after["bob"].record.losses == 11
    assert after["bob"].rated
    assert after["bob"].rating.rating < STEADY.rating


def replace_reason(finished: FinishedGame, reason: str) -> FinishedGame:
    from dataclasses import replace

    return replace(finished, reason=reason)


def _round_robin(people: list[str], rounds: int) -> list[FinishedGame]:
    games = []
    for r in range(rounds):
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                n = len(games) + 1
                winner = (r + i) % 2
                games.append(
                    game(n, (a, 1 + winner), (b, 2 - winner), at=T0 + timedelta(hours=25 * n))
                )
    return games


def test_a_claimed_guest_counts_as_its_account_to_the_same_numbers() -> None:
    """Counting a guest's seats under the account that claimed it (``counted_as``) gives
    the account the guest's very numbers, and everyone else theirs, whichever way the two
    ids sort: the fold depends on who is one person, never on the ids' spelling."""
    people = ["guest-00000000000000aa", "m", "n", "o", "p", "q"]
    games = _round_robin(people, 3)
    before = fold(games, WEEK)
    for account in ("acct-0", "zzz-account"):  # sorting before and after the others
        after = fold([counted_as(g, {people[0]: account}) for g in games], WEEK)
        assert after.scores[("connect4x4", account)] == replace(
            before.scores[("connect4x4", people[0])], player_id=account
        )
        for other in people[1:]:
            assert after.scores[("connect4x4", other)] == before.scores[("connect4x4", other)]
        assert ("connect4x4", people[0]) not in after.scores
