"""Scoring one game at a time (points by place, shared places, arena streaks and berserk),
results and berserks refused, and the worked examples of docs/tournament-tie-breaks.md."""

from __future__ import annotations

import dataclasses
import json

import pytest
from kits.tournaments import Run, started

from parlor.core.decider import replay
from parlor.core.errors import AlreadyExists, InvalidArgument, NotFound, ParlorError
from parlor.tournamentrules import (
    TOURNAMENTS,
    Berserk,
    GameScored,
    Pair,
    Pause,
    PlayerJoined,
    RecordResult,
    Settings,
    TablesPaired,
    TournamentCreated,
    TournamentStarted,
    Withdraw,
    export_json,
    export_text,
    reasons,
    resolved,
    standings,
    verify,
)
from parlor.tournamentrules.scoring import berserk_clock, place_points

ARENA = Settings(
    "ARENA", "connect4x4", max_players=8, duration_ms=600_000, berserk=True, berserk_min_moves=7
)


def refusal(run: Run, command: object) -> ParlorError:
    with pytest.raises(ParlorError) as refused:
        TOURNAMENTS.decide(run.state, command)  # type: ignore[arg-type]
    return refused.value


def test_points_by_place_with_shared_places_and_smaller_tables() -> None:
    two = resolved(Settings("SWISS", "connect4x4", max_players=8, rounds=3))
    assert place_points(two, {"a": 1, "b": 2}) == {"a": 2, "b": 0}
    assert place_points(two, {"a": 1, "b": 1}) == {"a": 1, "b": 1}
    four = resolved(Settings("SWISS", "takefour", max_players=8, table_size=4, rounds=3))
    assert four.points_by_place == (6, 4, 2, 0)
    assert place_points(four, {"a": 1, "b": 2, "c": 3, "d": 4}) == {"a": 6, "b": 4, "c": 2, "d": 0}
    assert place_points(four, {"a": 1, "b": 2, "c": 2, "d": 4}) == {"a": 6, "b": 3, "c": 3, "d": 0}
    assert place_points(four, {"a": 1, "b": 1, "c": 1, "d": 4}) == {"a": 4, "b": 4, "c": 4, "d": 0}
    assert place_points(four, {"a": 1, "b": 2, "c": 3}) == {"a": 4, "b": 2, "c": 0}
    custom = resolved(dataclasses.replace(four, points_by_place=(10, 5, 1, 0)))
    assert place_points(custom, {"a": 1, "b": 2, "c": 3}) == {"a": 5, "b": 1, "c": 0}
    assert place_points(custom, {"a": 1, "b": 1, "c": 3, "d": 4}) == {
        "a": 7,
        "b": 7,
        "c": 1,
        "d": 0,
    }


def one_game(run: Run, at: int) -> str:
    """Pair the two players (a fresh id); the game's id."""
    game_id = f"g{at}"
    run.do(Pair(at, (game_id,), at))
    return game_id


def test_arena_streaks_double_after_two_wins_until_a_non_win() -> None:
    run = started(ARENA, ["ada", "bob"])
    gained = []
    for at, result in enumerate(
        [(1, 2), (1, 2), (1, 2), (1, 1), (1, 2), (2, 1), (1, 2), (1, 2), (1, 2)], start=10
    ):
        game_id = one_game(run, at)
        run.do(RecordResult(game_id, (("ada", result[0]), ("bob", result[1])), 30, at))
        (scored,) = [e for e in run.events[-1:] if isinstance(e, GameScored)]
        gained.append(next(s for s in scored.scores if s[0] == "ada")[2:4])
    assert gained == [
        (2, False),
        (2, False),
        (4, True),  # third win in a row: doubled
        (2, True),  # a draw on a streak is doubled too, and ends it
        (2, False),
        (0, False),
        (2, False),
        (2, False),
        (4, True),
    ]
    assert run.state.points["ada"] == sum(points for points, _ in gained)


def test_berserk_adds_one_to_a_win_of_enough_moves_only() -> None:
    run = started(ARENA, ["ada", "bob"])
    cases = [((1, 2), 7, 3), ((1, 2), 6, 2), ((2, 1), 40, 0), ((1, 1), 40, 1)]
    for at, (result, moves, expected) in enumerate(cases, start=10):
        game_id = one_game(run, at)
        run.do(Berserk("ada", game_id, at))
        run.do(RecordResult(game_id, (("ada", result[0]), ("bob", result[1])), moves, at))
        scored = run.events[-1]
        assert isinstance(scored, GameScored)
        assert scored.scores[[s[0] for s in scored.scores].index("ada")][2] == expected


def test_verify_checks_the_berserks_scored_against_the_games_streams() -> None:
    run = started(ARENA, ["ada", "bob"])
    game_id = one_game(run, 10)
    run.do(Berserk("ada", game_id, 10))
    run.do(RecordResult(game_id, (("ada", 1), ("bob", 2)), 9, 10))
    assert verify(run.events, berserks={game_id: frozenset({"ada"})}) == []
    (found,) = verify(run.events, berserks={game_id: frozenset({"bob"})})
    assert f"game {game_id} records berserk ['bob'], scored with ['ada']" in found
    assert verify(run.events, berserks={}) != []  # a berserk the game never recorded


def test_a_berserk_clock_is_half_the_time_without_increment() -> None:
    rules = dataclasses.replace(ARENA, clock_initial_ms=180_000, clock_increment_ms=2_000)
    assert berserk_clock(rules) == (90_000, 0)


def test_berserk_on_a_streak_is_one_point_on_top_of_the_doubled_win() -> None:
    run = started(ARENA, ["ada", "bob"])
    for at in (10, 11):
        run.do(RecordResult(one_game(run, at), (("ada", 1), ("bob", 2)), 9, at))
    game_id = one_game(run, 12)
    run.do(Berserk("ada", game_id, 12))
    run.do(RecordResult(game_id, (("ada", 1), ("bob", 2)), 9, 12))
    assert run.state.points["ada"] == 2 + 2 + 4 + 1


def test_what_a_berserk_may_be_refused() -> None:
    swiss = started(Settings("SWISS", "connect4x4", max_players=4, rounds=2), ["a", "b"])
    swiss.do(Pair(3, ("s1",), 1))
    assert refusal(swiss, Berserk("a", "s1", 4)).reason == reasons.BERSERK_NOT_ALLOWED
    off = started(dataclasses.replace(ARENA, berserk=False), ["a", "b"])
    off.do(Pair(3, ("o1",), 1))
    assert refusal(off, Berserk("a", "o1", 4)).reason == reasons.BERSERK_NOT_ALLOWED
    run = started(ARENA, ["a", "b", "c"])
    run.do(Pause("c", 3))
    game_id = one_game(run, 3)
    error = refusal(run, Berserk("a", "nope", 4))
    assert isinstance(error, NotFound)
    assert error.reason == reasons.GAME_NOT_IN_TOURNAMENT
    assert refusal(run, Berserk("c", game_id, 4)).reason == reasons.NOT_AT_TABLE
    run.do(Berserk("a", game_id, 4))
    assert refusal(run, Berserk("a", game_id, 5)).reason == reasons.ALREADY_BERSERK
    run.do(RecordResult(game_id, (("a", 1), ("b", 2)), 9, 6))
    assert refusal(run, Berserk("b", game_id, 7)).reason == reasons.BERSERK_NOT_ALLOWED


def test_what_a_result_may_be_refused() -> None:
    run = started(ARENA, ["a", "b"])
    game_id = one_game(run, 3)
    assert refusal(run, RecordResult("nope", (("a", 1), ("b", 2)), 9, 4)).reason == (
        reasons.GAME_NOT_IN_TOURNAMENT
    )
    for places in (
        (("a", 1),),
        (("a", 1), ("c", 2)),
        (("a", 1), ("a", 2)),
        (("a", 0), ("b", 1)),
        (("a", 2), ("b", 2)),
        (("a", 1), ("b", 3)),
    ):
        error = refusal(run, RecordResult(game_id, places, 9, 4))
        assert isinstance(error, InvalidArgument)
        assert error.reason == reasons.BAD_RESULT
    assert refusal(run, RecordResult(game_id, (("a", 1), ("b", 2)), -1, 4)).reason == (
        reasons.BAD_RESULT
    )
    run.do(RecordResult(game_id, (("a", 1), ("b", 2)), 9, 4))
    again = refusal(run, RecordResult(game_id, (("a", 2), ("b", 1)), 9, 5))
    assert isinstance(again, AlreadyExists)
    assert again.reason == reasons.RESULT_ALREADY_RECORDED


def test_a_swiss_never_doubles() -> None:
    run = started(Settings("SWISS", "connect4x4", max_players=4, rounds=5), ["a", "b"])
    for at in range(3, 8):
        run.do(Pair(at, (f"g{at}",), at))
        run.do(RecordResult(f"g{at}", (("a", 1), ("b", 2)), 9, at))
    assert run.state.points["a"] == 10


# -- the worked examples of docs/tournament-tie-breaks.md --------------------------------


def history(settings: Settings, names: str, rounds: list[list[tuple[str, str]]]) -> list[object]:
    """Events of a tournament whose round r's tables are ``rounds[r]``: each table a string
    of players in seat order and a string of their places ("12": first seat won)."""
    state = TOURNAMENTS.initial_state()
    events: list[object] = [TournamentCreated(resolved(settings), "org", 0)]
    events += [PlayerJoined(p, False, 1) for p in names]
    events.append(TournamentStarted("org", 2))
    state = replay(TOURNAMENTS, events)  # type: ignore[arg-type]
    for number, tables in enumerate(rounds, start=1):
        paired = TablesPaired(
            number, tuple((f"r{number}{seats}", tuple(seats)) for seats, _ in tables), (), 0, 3
        )
        state = TOURNAMENTS.evolve(state, paired)
        events.append(paired)
        for seats, places in tables:
            (scored,) = TOURNAMENTS.decide(
                state,
                RecordResult(
                    f"r{number}{seats}", tuple(zip(seats, map(int, places), strict=True)), 9, 4
                ),
            )
            state = TOURNAMENTS.evolve(state, scored)
            events.append(scored)
    return events


def test_the_two_seat_worked_example() -> None:
    swiss = Settings("SWISS", "connect4x4", max_players=4, rounds=3)
    events = history(
        swiss,
        "ABCD",
        [
            [("AB", "12"), ("CD", "11")],
            [("AC", "11"), ("DB", "21")],
            [("DA", "12"), ("BC", "12")],
        ],
    )
    state = replay(TOURNAMENTS, events)  # type: ignore[arg-type]
    table = standings(state)
    assert [(s.rank, s.player, s.points, dict(s.tie_breaks)) for s in table] == [
        (1, "B", 4, {"buchholz_cut1": 6.0, "buchholz": 8.0, "sonneborn_berger": 5.0}),
        (2, "A", 3, {"buchholz_cut1": 7.0, "buchholz": 9.0, "sonneborn_berger": 5.0}),
        (3, "D", 3, {"buchholz_cut1": 7.0, "buchholz": 9.0, "sonneborn_berger": 4.0}),
        (4, "C", 2, {"buchholz_cut1": 7.0, "buchholz": 10.0, "sonneborn_berger": 3.0}),
    ]


def test_the_multi_seat_worked_example() -> None:
    three = Settings("SWISS", "takefour", max_players=3, table_size=3, rounds=2)
    events = history(three, "ABC", [[("ABC", "122")], [("CAB", "123")]])
    state = replay(TOURNAMENTS, events)  # type: ignore[arg-type]
    by_player = {s.player: (s.rank, s.points, dict(s.tie_breaks)) for s in standings(state)}
    assert by_player == {
        "A": (1, 6, {"buchholz_cut1": 3.0, "buchholz": 6.0, "sonneborn_berger": 3.5}),
        "C": (2, 5, {"buchholz_cut1": 3.5, "buchholz": 7.0, "sonneborn_berger": 3.75}),
        "B": (3, 1, {"buchholz_cut1": 5.5, "buchholz": 11.0, "sonneborn_berger": 1.25}),
    }


def test_equal_on_everything_shares_a_rank_and_withdrawals_are_flagged() -> None:
    swiss = Settings("SWISS", "connect4x4", max_players=4, rounds=1)
    events = history(swiss, "ABCD", [[("AB", "11"), ("CD", "11")]])
    state = replay(TOURNAMENTS, events)  # type: ignore[arg-type]
    run = Run(state, list(events))  # type: ignore[arg-type]
    run.do(Withdraw("D", 5))
    table = standings(run.state)
    assert [s.rank for s in table] == [1, 1, 1, 1]
    assert [s.player for s in table] == ["A", "B", "C", "D"]
    assert [s.withdrawn for s in table] == [False, False, False, True]


def test_arena_ties_go_to_more_wins_then_fewer_games() -> None:
    run = started(ARENA, ["a", "b", "c", "d"])
    run.do(Pair(3, ("g1", "g2"), 1))
    for game_id, seats in run.state.rounds[0].tables:
        run.do(RecordResult(game_id, tuple((p, 1) for p in seats), 9, 4))
    table = standings(run.state)
    assert {s.points for s in table} == {1}
    assert [s.rank for s in table] == [1, 1, 1, 1]
    assert table[0].tie_breaks == (("wins", 0.0),)


def test_exports_hold_standings_and_every_round() -> None:
    run = started(ARENA, ["ada", "bob"])
    game_id = one_game(run, 3)
    run.do(Berserk("bob", game_id, 3))
    run.do(RecordResult(game_id, (("ada", 2), ("bob", 1)), 12, 4))
    exported = export_json(run.state)
    assert json.loads(json.dumps(exported)) == exported
    assert exported["standings"][0]["player"] == "bob"
    assert exported["standings"][0]["points"] == 3
    ((table,),) = [r["tables"] for r in exported["rounds"]]
    assert table["game_id"] == game_id
    assert {x["player"]: x["berserk_bonus"] for x in table["result"]} == {
        "ada": False,
        "bob": True,
    }
    text = export_text(run.state)
    assert "Standings" in text
    assert "Round 1" in text
    assert f"{game_id}:" in text
    assert verify(run.events) == []
