"""Time (docs/rules/upwords.md, "Time"): a seat out of time drops out; with two, it loses."""

from __future__ import annotations

import pytest
from upwords_testkit import approved, board, run, state

from parlor.core.errors import RuleViolation
from parlor.rules.upwords import GameEnded, Pass, PlayerTimedOut, Resign, TimeOut, UpwordsConfig
from parlor.rules.upwords.standings import standings
from parlor.rules.upwords.state import Phase


def test_a_seat_out_of_time_in_a_two_player_game_loses() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG"), scores=(30, 0))
    s, events = run(s, TimeOut(0))
    assert events[0] == PlayerTimedOut(0)
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.reason == "TIMEOUT"
    assert ended.winners == (1,)  # the seat that ran out never wins, whatever its score
    assert ended.penalties == (35, 35)  # racks score as at the end


def test_a_seat_out_of_time_in_a_three_player_game_drops_out_and_is_skipped() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG", "HIJKLMN"), to_move=1)
    s, events = run(s, TimeOut(1))
    assert events == [PlayerTimedOut(1)]
    assert s.to_move == 2
    s, _ = run(s, Pass(2))
    assert s.to_move == 0  # seat 1's turns are skipped
    s, _ = run(s, approved(s, 0, "5E CAT"))
    assert s.to_move == 2


def test_a_dropped_out_seat_can_no_longer_act() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG", "HIJKLMN"))
    s, _ = run(s, TimeOut(0))
    with pytest.raises(RuleViolation) as refused:
        run(s, Pass(0))
    assert refused.value.rule == "SEAT_TIMED_OUT"
    assert refused.value.metadata == {"departure": "TIMED_OUT"}


def test_all_passed_counts_only_the_seats_still_playing() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG", "HIJKLMN"))
    s, _ = run(s, TimeOut(0))
    s, _ = run(s, Pass(1))
    s, events = run(s, Pass(2))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.reason == "ALL_PASSED"
    assert 0 not in ended.winners


def test_the_last_seat_playing_wins_on_time() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG", "HIJKLMN"), scores=(50, 40, 0))
    s, _ = run(s, TimeOut(0))
    s, events = run(s, TimeOut(1))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.reason, ended.winners) == ("TIMEOUT", (2,))


def test_a_seat_out_of_time_ranks_behind_every_seat_that_played_on() -> None:
    """Rules 3: letting the clock run out is leaving, as resigning is; by its score the seat
    would rank above the players who stayed (and be rated so), a way round the resigner's
    place behind them."""
    s = state(board("5E CAT"), racks=("O", "HIJ", "KLM"), scores=(50, 3, 9))
    s, _ = run(s, TimeOut(0), Pass(1), Pass(2))
    assert (s.phase, s.end_reason, s.winners) == (Phase.ENDED, "ALL_PASSED", (2,))
    assert s.scores == (45, -12, -6)
    reason, ranked = standings(s)
    assert reason == "ALL_PASSED"
    assert [r.rank for r in ranked] == [3, 2, 1]  # 45 points, but it ran out of time
    assert [r.departure for r in ranked] == ["TIMED_OUT", "", ""]


def test_each_seat_that_left_says_why_resigned_or_out_of_time() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG", "HIJKLMN", "OPQRSTU"))
    s, _ = run(s, TimeOut(0), Resign(1))
    assert [s.departure(seat) for seat in range(4)] == ["TIMED_OUT", "RESIGNED", "", ""]
    s, _ = run(s, Resign(2))
    _, ranked = standings(s)
    assert [r.departure for r in ranked] == ["TIMED_OUT", "RESIGNED", "RESIGNED", ""]


def test_rules_2_games_rank_a_seat_out_of_time_by_its_score() -> None:
    """A game keeps the reading it was created with: a replay ranks it as it was ranked."""
    s = state(
        board("5E CAT"), racks=("O", "HIJ", "KLM"), scores=(50, 3, 9), config=UpwordsConfig(rules=2)
    )
    s, _ = run(s, TimeOut(0), Pass(1), Pass(2))
    _, ranked = standings(s)
    assert [r.rank for r in ranked] == [2, 3, 1]
