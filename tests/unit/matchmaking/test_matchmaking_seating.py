"""Matchmaking's pure parts: game types, player counts, bots, shuffled seats, MatchFormed."""

from __future__ import annotations

import secrets
from collections import Counter
from datetime import UTC, datetime

import pytest

from parlor.core.errors import InvalidArgument
from parlor.gametypes.timecontrol import TimeControl
from parlor.matching import Match
from parlor.services.matchmaking.games import GAME_TYPES, bot_player, check_counts, game_type
from parlor.services.matchmaking.rounds import match_formed, seat_match

ALL = tuple(GAME_TYPES)


def test_unknown_game_type_is_refused() -> None:
    with pytest.raises(InvalidArgument) as refused:
        game_type("chess", ALL)
    assert refused.value.reason == "UNKNOWN_GAME_TYPE"


def test_a_game_type_switched_off_is_unknown() -> None:
    with pytest.raises(InvalidArgument):
        game_type("upwords", ("connect4x4",))


@pytest.mark.parametrize(("low", "high"), [(1, 2), (3, 2), (2, 5), (5, 5)])
def test_player_counts_outside_the_game_are_refused(low: int, high: int) -> None:
    with pytest.raises(InvalidArgument) as refused:
        check_counts(GAME_TYPES["connect4x4"], low, high)
    assert refused.value.reason == "BAD_PLAYER_COUNT"


def test_zero_counts_mean_the_game_bounds() -> None:
    assert check_counts(GAME_TYPES["takefour"], 0, 0) == (2, 8)
    assert check_counts(GAME_TYPES["upwords"], 3, 0) == (3, 4)


def test_bot_levels_become_the_names_game_services_know() -> None:
    assert [bot_player(f"bot:{n}") for n in (1, 2, 3, 4)] == [
        "bot:random",
        "bot:greedy",
        "bot:strong",
        "bot:strong",
    ]


def test_each_game_type_gets_bots_its_service_knows() -> None:
    assert [bot_player(f"bot:{n}", "upwords") for n in (1, 2, 3)] == [
        "bot:random",
        "bot:best",
        "bot:best",
    ]
    assert [bot_player(f"bot:{n}", "takefour") for n in (1, 2, 3)] == [
        "bot:easy",
        "bot:medium",
        "bot:hard",
    ]


def test_seats_are_shuffled_and_each_ticket_keeps_its_seat() -> None:
    match = Match("connect4x4", ("ann", "bob", "bot:2"), ("t1", "t2"), 1500.0)
    rng = secrets.SystemRandom()
    firsts: Counter[str] = Counter()
    for _ in range(300):
        formed = seat_match(match, {"t1": "Ann", "t2": "Bob"}, rng, "m1")
        players = [p for p, _ in formed.seats]
        assert sorted(players) == ["ann", "bob", "bot:greedy"]
        assert players[formed.seat_of["t1"]] == "ann"
        assert players[formed.seat_of["t2"]] == "bob"
        firsts[players[0]] += 1
    assert set(firsts) == {"ann", "bob", "bot:greedy"}  # anyone may start


def test_match_formed_records_the_shuffled_seats() -> None:
    match = Match("upwords", ("ann", "bob"), ("t1", "t2"), 1500.0, "ABCD2345", TimeControl())
    formed = seat_match(match, {"t1": "Ann", "t2": "Bob"}, secrets.SystemRandom(), "m1")
    now = datetime(2026, 11, 30, tzinfo=UTC)
    event = match_formed(formed, now)
    # The match's id (its game's id) is the one drawn for it, never its first ticket's
    # id, which that ticket's owner knows (issue 15).
    assert event.match_id == "m1"
    assert [(s.index, s.player_id) for s in event.seats] == [
        (i, p) for i, (p, _) in enumerate(formed.seats)
    ]
    assert list(event.ticket_ids) == ["t1", "t2"]
    assert event.lobby == "ABCD2345"
    assert event.formed_at.ToDatetime(UTC) == now
