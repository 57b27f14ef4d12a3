"""Pairing, one rule at a time: Swiss rounds, byes, seats, late entry, withdrawals and
pauses, the search that does not dead-end, arena waves, and what a Pair may be refused."""

from __future__ import annotations

import dataclasses
import itertools
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kits.tournaments import Run, places, started

from parlor.core.decider import execute, replay
from parlor.core.errors import InvalidArgument, ParlorError
from parlor.tournamentrules import (
    TOURNAMENTS,
    Create,
    Finish,
    GameScored,
    Join,
    Pair,
    Pause,
    PlayerJoined,
    RecordResult,
    Rejoin,
    Settings,
    Start,
    TablesPaired,
    TournamentCreated,
    TournamentStarted,
    Withdraw,
    due,
    games_in_play,
    reasons,
    resolved,
    tables_needed,
)
from parlor.tournamentrules.pairing import draw, propose, table_sizes

SWISS = Settings("SWISS", "connect4x4", max_players=64, rounds=5)
ARENA = Settings("ARENA", "connect4x4", max_players=64, duration_ms=60_000)


def refusal(run: Run, command: object) -> ParlorError:
    with pytest.raises(ParlorError) as refused:
        TOURNAMENTS.decide(run.state, command)  # type: ignore[arg-type]
    return refused.value


def score_all(run: Run, at: int, rng: Random) -> None:
    for game in games_in_play(run.state):
        run.do(RecordResult(game.game_id, places(game.seats, rng), 10, at))


def players(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(n)]


def test_a_swiss_round_seats_everyone_once_and_gives_the_odd_one_a_bye() -> None:
    run = started(SWISS, players(7))
    run.pair(3, Random(1))
    (paired,) = run.state.rounds
    seated = [p for _, seats in paired.tables for p in seats]
    assert len(paired.tables) == 3
    assert len(paired.byes) == 1
    bye, points = paired.byes[0]
    assert points == 2  # the documented default: a win
    assert sorted([*seated, bye]) == players(7)
    assert run.state.points[bye] == 2


def test_byes_go_to_the_lowest_ranked_without_one_and_never_twice() -> None:
    run = started(SWISS, players(5))
    run.do(Pair(3, ("x1", "x2", "x3"), seed=11))
    ((first, _),) = run.state.rounds[0].byes
    assert first == max(players(5), key=lambda p: draw(11, p)), "all level: the last drawn"
    rng = Random(2)
    had = [first]
    score_all(run, 3, rng)
    for at in range(4, 8):
        run.pair(at, rng)
        ((bye, _),) = run.state.rounds[-1].byes
        assert bye not in had
        had.append(bye)
        score_all(run, at, rng)
    assert sorted(had) == players(5)


def test_the_same_seed_pairs_alike_and_seeds_break_ties() -> None:
    first = started(SWISS, players(16))
    second = started(SWISS, players(16))
    for run in (first, second):
        run.do(Pair(3, tuple(f"g{n}" for n in range(8)), seed=42))
    assert first.state.rounds == second.state.rounds
    other = started(SWISS, players(16))
    other.do(Pair(3, tuple(f"g{n}" for n in range(8)), seed=43))
    assert other.state.rounds[0].tables != first.state.rounds[0].tables


def test_pairs_keep_to_score_groups_and_seat_first_who_went_first_less() -> None:
    run = started(SWISS, players(8))
    rng = Random(3)
    run.pair(3, rng)
    firsts = {seats[0] for _, seats in run.state.rounds[0].tables}
    for n, game in enumerate(games_in_play(run.state)):
        winner = game.seats[n % 2]  # half the winners went first, half second
        loser = game.seats[1 - n % 2]
        run.do(RecordResult(game.game_id, ((winner, 1), (loser, 2)), 9, 4))
    run.pair(5, rng)
    for _, (a, b) in run.state.rounds[1].tables:
        assert run.state.points[a] == run.state.points[b], "winners meet winners"
        assert a not in firsts, "who went first goes second next"
        assert b in firsts


def test_first_seats_stay_balanced_before_score_groups() -> None:
    """Every winner went first: two of them cannot meet without one going first twice more
    than second, so winners meet losers (docs: seat balance is a hard rule)."""
    run = started(SWISS, players(8))
    rng = Random(3)
    run.pair(3, rng)
    for game in games_in_play(run.state):
        run.do(RecordResult(game.game_id, ((game.seats[0], 1), (game.seats[1], 2)), 9, 4))
    run.pair(5, rng)
    for _, (a, b) in run.state.rounds[1].tables:
        assert run.state.points[a] == 0
        assert run.state.points[b] == 2


def test_the_search_backtracks_where_a_greedy_pass_would_dead_end() -> None:
    """a and b lead (byes), c and d drew each other. Pairing the leaders together, as
    their score group asks, would leave c and d to meet again: the search must go back
    and pair each leader with one of them."""
    created = TournamentCreated(resolved(dataclasses.replace(SWISS, rounds=5)), "org", 0)
    events: list[object] = [created]
    events += [PlayerJoined(p, False, 1) for p in "abcd"]
    events.append(TournamentStarted("org", 2))
    events.append(TablesPaired(1, (("g1", ("c", "d")),), (("a", 2), ("b", 2)), 0, 3))
    events.append(GameScored("g1", 1, (("c", 1, 1, False, False), ("d", 1, 1, False, False)), 9, 4))
    state = replay(TOURNAMENTS, events)  # type: ignore[arg-type]
    proposal = propose(state, 5, seed=7)
    assert proposal is not None
    tables, byes = proposal
    assert byes == ()
    pairs = {frozenset(seats) for seats in tables}
    assert pairs in (
        {frozenset("ac"), frozenset("bd")},
        {frozenset("ad"), frozenset("bc")},
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(1, 4), st.integers(0, 2**32))
def test_a_repeat_free_pairing_is_found_whenever_one_exists(
    half: int, rounds: int, seed: int
) -> None:
    """Any history (random earlier pairings and results) over 4..10 players: if brute force
    finds a pairing without a repeat, so do the rules."""
    rng = Random(seed)
    names = players(2 * half)
    events: list[object] = [
        TournamentCreated(resolved(dataclasses.replace(SWISS, rounds=9)), "o", 0)
    ]
    events += [PlayerJoined(p, False, 1) for p in names]
    events.append(TournamentStarted("o", 2))
    state = replay(TOURNAMENTS, events)  # type: ignore[arg-type]
    for number in range(1, rounds + 1):
        order = list(names)
        rng.shuffle(order)
        tables = tuple((f"g{number}-{i}", (order[2 * i], order[2 * i + 1])) for i in range(half))
        state = TOURNAMENTS.evolve(state, TablesPaired(number, tables, (), 0, 3))
        for game_id, seats in tables:
            state, _ = execute(TOURNAMENTS, state, RecordResult(game_id, places(seats, rng), 5, 4))
    met = {frozenset(g.seats) for g in state.games.values()}

    def perfect(left: list[str]) -> bool:
        if not left:
            return True
        return any(
            frozenset((left[0], q)) not in met and perfect([p for p in left[1:] if p != q])
            for q in left[1:]
        )

    proposal = propose(state, 5, seed)
    assert proposal is not None
    pairs = {frozenset(seats) for seats in proposal[0]}
    assert (not pairs & met) == perfect(names)


def test_table_sizes_are_as_even_as_can_be_and_never_below_two() -> None:
    assert table_sizes(16, 4) == [4, 4, 4, 4]
    assert table_sizes(10, 4) == [4, 3, 3]
    assert table_sizes(18, 4) == [4, 4, 4, 3, 3]
    assert table_sizes(5, 4) == [3, 2]
    assert table_sizes(9, 8) == [5, 4]
    assert table_sizes(7, 2) == [2, 2, 2, 1]  # the table of one is the bye
    for n, k in itertools.product(range(2, 40), range(3, 9)):
        sizes = table_sizes(n, k)
        assert sum(sizes) == n
        assert min(sizes) >= 2
        assert max(sizes) - min(sizes) <= 1
        assert max(sizes) <= k


def test_multi_seat_swiss_rotates_the_first_seat() -> None:
    rules = Settings("SWISS", "takefour", max_players=16, table_size=4, rounds=4)
    run = started(rules, players(8))
    rng = Random(4)
    firsts: dict[str, int] = dict.fromkeys(players(8), 0)
    for at in range(3, 7):
        run.pair(at, rng)
        for _, seats in run.state.rounds[-1].tables:
            fewest = min(firsts[p] for p in seats)
            assert firsts[seats[0]] == fewest, "the first seat to whoever had it least"
            firsts[seats[0]] += 1
        score_all(run, at, rng)
    assert max(firsts.values()) <= 2


def test_late_entry_until_the_documented_round_then_closed() -> None:
    run = started(dataclasses.replace(SWISS, rounds=4), players(6))  # late entry until round 2
    rng = Random(5)
    run.pair(3, rng)
    score_all(run, 3, rng)
    run.do(Join("late", False, 4))
    assert run.state.entrants["late"].joined_round == 1
    assert run.state.points["late"] == 0, "no points for the rounds missed"
    run.pair(5, rng)
    assert any("late" in seats for _, seats in run.state.rounds[-1].tables) or any(
        p == "late" for p, _ in run.state.rounds[-1].byes
    )
    error = refusal(run, Join("later", False, 6))
    assert error.reason == reasons.REGISTRATION_CLOSED


def test_withdrawn_and_paused_players_are_not_paired_and_rejoin_later() -> None:
    run = started(SWISS, players(6))
    rng = Random(6)
    run.do(Withdraw("p00", 3))
    run.do(Pause("p01", 3))
    run.pair(3, rng)
    seated = {p for _, seats in run.state.rounds[0].tables for p in seats}
    assert seated == set(players(6)) - {"p00", "p01"}
    score_all(run, 3, rng)
    run.do(Rejoin("p01", 4))
    run.pair(5, rng)
    second = run.state.rounds[1]
    seated = {p for _, seats in second.tables for p in seats} | {p for p, _ in second.byes}
    assert "p01" in seated
    assert "p00" not in seated


def test_what_a_pair_may_be_refused() -> None:
    run = started(SWISS, players(4))
    error = refusal(run, Pair(3, ("x",), 1))
    assert isinstance(error, InvalidArgument)
    assert error.reason == reasons.NOT_ENOUGH_GAME_IDS
    assert error.metadata["needed"] == "2"
    assert refusal(run, Pair(3, ("x", "x"), 1)).reason == reasons.GAME_ID_REUSED
    assert tables_needed(run.state) == 2
    run.pair(3, Random(7))
    assert refusal(run, Pair(4, ("y", "z"), 1)).reason == reasons.NOTHING_TO_PAIR
    game = next(iter(run.state.games))
    score_all(run, 4, Random(7))
    assert refusal(run, Pair(5, (game, "new"), 1)).reason == reasons.GAME_ID_REUSED
    before = Run(TOURNAMENTS.initial_state())
    before.do(Create(SWISS, "org", 0))
    before.do(Join("a", False, 1))
    assert refusal(before, Pair(3, ("x",), 1)).reason == reasons.NOT_STARTED


def test_a_swiss_is_due_to_pair_each_round_then_to_finish() -> None:
    run = started(dataclasses.replace(SWISS, rounds=2), players(4))
    rng = Random(8)
    assert due(run.state, 3) == "pair"
    run.pair(3, rng)
    assert due(run.state, 3) is None
    assert refusal(run, Finish(3)).reason == reasons.NOT_DUE
    score_all(run, 4, rng)
    run.pair(5, rng)
    score_all(run, 6, rng)
    assert due(run.state, 7) == "finish"
    run.do(Finish(7))
    assert TOURNAMENTS.is_terminal(run.state)
    assert refusal(run, Join("x", False, 8)).reason == reasons.ALREADY_FINISHED


def test_an_arena_pairs_near_rank_and_never_the_last_opponent_while_another_is_free() -> None:
    run = started(ARENA, ["a", "b", "c", "d"])
    run.do(Pair(3, ("g1", "g2"), 1))
    by_game = dict(run.state.rounds[0].tables)
    for game_id, seats in by_game.items():
        run.do(RecordResult(game_id, ((seats[0], 1), (seats[1], 2)), 9, 4))
    winners = sorted(seats[0] for seats in by_game.values())
    run.do(Pair(5, ("g3", "g4"), 2))
    pairs = {frozenset(seats) for _, seats in run.state.rounds[1].tables}
    assert frozenset(winners) in pairs, "the two leaders meet"
    assert not pairs & {frozenset(s) for s in by_game.values()}


def test_an_arena_leaves_a_player_waiting_rather_than_rematch_at_once() -> None:
    run = started(ARENA, ["a", "b", "c"])
    run.do(Pair(3, ("g1",), 1))
    ((game_id, seats),) = run.state.rounds[0].tables
    (waiting,) = {"a", "b", "c"} - set(seats)
    run.do(RecordResult(game_id, ((seats[0], 1), (seats[1], 2)), 9, 4))
    run.do(Pair(5, ("g2",), 2))
    ((_, again),) = run.state.rounds[1].tables
    assert waiting in again
    (other,) = set(seats) - set(again)
    assert run.state.free() == [other], "the other waits for someone new"
    assert due(run.state, 6) is None


def test_two_players_left_alone_may_rematch() -> None:
    run = started(ARENA, ["a", "b", "c"])
    run.do(Pause("c", 3))
    run.do(Pair(3, ("g1",), 1))
    run.do(RecordResult("g1", (("a", 1), ("b", 1)), 9, 4))
    assert due(run.state, 5) == "pair"
    run.do(Pair(5, ("g2",), 2))


def test_an_arena_stops_pairing_at_time_up_and_finishes_when_its_games_end() -> None:
    run = started(ARENA, ["a", "b", "c", "d"])
    run.do(Pair(3, ("g1", "g2"), 1))
    run.do(RecordResult("g1", tuple((p, 1) for p in run.state.games["g1"].seats), 9, 4))
    end = run.state.arena_ends_at_ms
    assert due(run.state, end) is None, "time up: no pairing, a game still in play"
    assert refusal(run, Pair(end, ("g3",), 1)).reason == reasons.NOTHING_TO_PAIR
    assert refusal(run, Join("late", False, end)).reason == reasons.REGISTRATION_CLOSED
    run.do(RecordResult("g2", tuple((p, 1) for p in run.state.games["g2"].seats), 9, end + 5))
    assert run.state.points == {"a": 1, "b": 1, "c": 1, "d": 1}, "the last game still counts"
    assert due(run.state, end + 5) == "finish"
    run.do(Finish(end + 5))


def test_an_arena_of_tables_of_four_seats_full_tables_and_lets_the_rest_wait() -> None:
    rules = Settings("ARENA", "takefour", max_players=16, table_size=4, duration_ms=60_000)
    run = started(rules, players(9))
    run.pair(3, Random(9))
    assert [len(seats) for _, seats in run.state.rounds[0].tables] == [4, 4]
    assert len(run.state.free()) == 1
    assert due(run.state, 4) is None
    run.do(Join("p09", False, 4))
    run.do(Join("p10", False, 4))
    run.do(Join("p11", False, 4))
    assert due(run.state, 4) == "pair"


def test_start_then_pairing_is_due_at_once() -> None:
    run = Run(TOURNAMENTS.initial_state())
    run.do(Create(SWISS, "org", 0))
    run.do(Join("a", False, 1))
    run.do(Join("b", False, 1))
    assert due(run.state, 2) is None
    run.do(Start("org", 2))
    assert due(run.state, 2) == "pair"


def test_a_swiss_waits_while_everyone_left_is_paused_and_ends_when_nobody_is_left() -> None:
    run = started(SWISS, ["a", "b"])
    run.pair(3, Random(10))
    score_all(run, 4, Random(10))
    run.do(Pause("a", 5))
    run.do(Pause("b", 5))
    assert due(run.state, 6) is None
    assert refusal(run, Pair(6, ("x",), 1)).reason == reasons.NOTHING_TO_PAIR
    run.do(Rejoin("b", 7))
    assert due(run.state, 7) == "pair"
    run.do(Withdraw("b", 8))
    assert due(run.state, 8) is None, "a is paused, not gone"
    run.do(Withdraw("a", 9))
    assert due(run.state, 9) == "finish"
