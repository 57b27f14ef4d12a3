"""Properties of whole tournaments played through the decider with random results,
withdrawals, pauses and late entries: Swiss pairings never repeat, byes at most once, first
seats balanced, standings equal to a recomputation written here from the export; arena
pairings never rematch at once while anyone else could play, streaks and berserk scored as
documented; verify() agrees with honest histories and catches tampered ones."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st
from kits.tournaments import (
    arena,
    arena_points,
    assert_standings_recomputed,
    recomputed,
    swiss,
)

from parlor.accounts.codec import decode, encode
from parlor.core.decider import replay
from parlor.tournamentrules import (
    EVENT_TYPES,
    TOURNAMENTS,
    GameScored,
    PlayerJoined,
    PlayerPaused,
    PlayerRejoined,
    PlayerWithdrew,
    Settings,
    TablesPaired,
    export_json,
    verify,
)


@st.composite
def swiss_plans(draw: st.DrawFn) -> tuple[int, int, int, int, int, int]:
    entrants = draw(st.integers(8, 64))
    rounds = draw(st.integers(3, min(9, entrants // 2 - 1)))
    withdrawals = draw(st.integers(0, entrants // 8))
    late = draw(st.integers(0, 4))
    pauses = draw(st.integers(0, 2))
    seed = draw(st.integers(0, 2**32))
    return entrants, rounds, withdrawals, late, pauses, seed


@settings(max_examples=12, deadline=None)
@given(swiss_plans())
def test_a_swiss_never_repeats_gives_byes_once_balances_seats_and_standings_recompute(
    plan: tuple[int, int, int, int, int, int],
) -> None:
    entrants, rounds, withdrawals, late, pauses, seed = plan
    rules = Settings("SWISS", "connect4x4", max_players=100, rounds=rounds)
    run = swiss(rules, entrants, Random(seed), withdrawals=withdrawals, late=late, pauses=pauses)
    export = export_json(run.state)
    assert export["phase"] == "FINISHED"
    assert len(export["rounds"]) == rounds

    met: Counter[frozenset[str]] = Counter()
    firsts: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    byes: Counter[str] = Counter()
    for r in export["rounds"]:
        seated = [p for t in r["tables"] for p in t["seats"]] + [b["player"] for b in r["byes"]]
        assert len(seated) == len(set(seated)), "nobody sits twice in a round"
        for table in r["tables"]:
            first, second = table["seats"]
            met[frozenset((first, second))] += 1
            firsts[first] += 1
            seconds[second] += 1
        byes.update(b["player"] for b in r["byes"])
    assert max(met.values()) == 1, "no repeat pairing"
    assert not byes or max(byes.values()) == 1, "a bye at most once per player"
    for player in set(firsts) | set(seconds):
        assert abs(firsts[player] - seconds[player]) <= 1, player

    assert_standings_recomputed(export)
    assert verify(run.events) == []
    assert replay(TOURNAMENTS, run.events) == run.state
    for event in run.events:
        assert decode(EVENT_TYPES, *encode(event)) == event


def test_a_swiss_of_sixty_four_with_bots_and_late_entries_holds_up() -> None:
    """The issue's show case at its size, once, with a fixed seed."""
    rules = Settings("SWISS", "connect4x4", max_players=100, rounds=7)
    run = swiss(rules, 64, Random(64), withdrawals=3, late=3, pauses=2)
    export = export_json(run.state)
    pairs = [frozenset(t["seats"]) for r in export["rounds"] for t in r["tables"]]
    assert len(pairs) == len(set(pairs))
    assert any(s["is_bot"] for s in export["standings"])
    assert {p: v[0] for p, v in recomputed(export).items()} == {
        s["player"]: s["points"] for s in export["standings"]
    }
    assert verify(run.events) == []


@settings(max_examples=6, deadline=None)
@given(st.integers(4, 40), st.integers(0, 2**32))
def test_an_arena_never_rematches_at_once_and_scores_streaks_and_berserk(
    entrants: int, seed: int
) -> None:
    rules = Settings("ARENA", "connect4x4", max_players=100, duration_ms=30_000, berserk=True)
    run = arena(rules, entrants, Random(seed), pauses=3, late=2)
    active: set[str] = set()
    last: dict[str, str] = {}
    for event in run.events:
        if isinstance(event, PlayerJoined | PlayerRejoined):
            active.add(event.player)
        if isinstance(event, PlayerWithdrew | PlayerPaused):
            active.discard(event.player)
        if isinstance(event, TablesPaired):
            for _, (a, b) in event.tables:
                if last.get(a) == b or last.get(b) == a:
                    assert active == {a, b}, "a rematch only when nobody else is there"
            for _, (a, b) in event.tables:
                last[a], last[b] = b, a
    for event in run.events:
        assert decode(EVENT_TYPES, *encode(event)) == event
    points = arena_points(run.events, rules.berserk_min_moves)
    export = export_json(run.state)
    assert {s["player"]: s["points"] for s in export["standings"]} == {
        p: points.get(p, 0) for p in run.state.entrants
    }
    assert verify(run.events) == []


@settings(max_examples=8, deadline=None)
@given(st.integers(6, 32), st.integers(3, 6), st.integers(2, 4), st.integers(0, 2**32))
def test_a_multi_seat_swiss_seats_everyone_once_and_standings_recompute(
    entrants: int, table_size: int, rounds: int, seed: int
) -> None:
    rules = Settings("SWISS", "takefour", max_players=64, table_size=table_size, rounds=rounds)
    run = swiss(rules, entrants, Random(seed), withdrawals=1, late=2)
    export = export_json(run.state)
    for r in export["rounds"]:
        sizes = [len(t["seats"]) for t in r["tables"]]
        seated = [p for t in r["tables"] for p in t["seats"]] + [b["player"] for b in r["byes"]]
        assert len(seated) == len(set(seated))
        assert max(sizes) - min(sizes) <= 1
        assert min(sizes) >= 2
        assert max(sizes) <= table_size
    assert_standings_recomputed(export)
    assert verify(run.events) == []


def test_take_four_tables_of_four() -> None:
    rules = Settings("SWISS", "takefour", max_players=40, table_size=4, rounds=4)
    run = swiss(rules, 16, Random(4))
    for number in run.state.rounds:
        assert [len(seats) for _, seats in number.tables] == [4, 4, 4, 4]
    meetings = Counter(
        frozenset((a, b))
        for game in run.state.games.values()
        for a in game.seats
        for b in game.seats
        if a < b
    )
    assert max(meetings.values()) <= 2
    firsts = Counter(game.seats[0] for game in run.state.games.values())
    assert max(firsts.values()) <= 2, "the first seat rotates"
    expected = recomputed(export_json(run.state))
    for standing in export_json(run.state)["standings"]:
        assert standing["points"] == expected[standing["player"]][0]
    assert verify(run.events) == []

    uneven = swiss(rules, 18, Random(5))
    for number in uneven.state.rounds:
        assert sorted(len(seats) for _, seats in number.tables) == [3, 3, 4, 4, 4]
    four = Settings("ARENA", "takefour", max_players=40, table_size=4, duration_ms=20_000)
    run = arena(four, 13, Random(6), berserk=0)
    assert {len(seats) for game in run.state.games.values() for seats in [game.seats]} == {4}
    assert verify(run.events) == []


def test_verify_finds_a_tampered_pairing_result_or_score() -> None:
    rules = Settings("SWISS", "connect4x4", max_players=100, rounds=4)
    run = swiss(rules, 12, Random(12))
    events = run.events
    assert verify(events) == []
    results = {
        e.game_id: {player: place for player, place, *_ in e.scores}
        for e in events
        if isinstance(e, GameScored)
    }
    assert verify(events, results) == []

    paired = [i for i, e in enumerate(events) if isinstance(e, TablesPaired)]
    second = events[paired[1]]
    assert isinstance(second, TablesPaired)
    (g1, (a, b)), (g2, (c, d)), *rest = second.tables
    swapped = dataclasses.replace(second, tables=((g1, (a, d)), (g2, (c, b)), *rest))
    tampered = [*events[: paired[1]], swapped, *events[paired[1] + 1 :]]
    assert any("event" in p and "TablesPaired" in p for p in verify(tampered))

    scored = next(i for i, e in enumerate(events) if isinstance(e, GameScored))
    score = events[scored]
    assert isinstance(score, GameScored)
    (p1, _, _, x1, y1), (p2, _, _, x2, y2) = score.scores
    flipped = dataclasses.replace(score, scores=((p1, 1, 2, x1, y1), (p2, 2, 0, x2, y2)))
    if flipped == score:
        flipped = dataclasses.replace(score, scores=((p1, 2, 0, x1, y1), (p2, 1, 2, x2, y2)))
    lying = [*events[:scored], flipped, *events[scored + 1 :]]
    assert any("ended" in p for p in verify(lying, results)), "the game's own result differs"

    padded = dataclasses.replace(score, scores=((p1, 1, 5, x1, y1), (p2, 2, 0, x2, y2)))
    assert verify([*events[:scored], padded, *events[scored + 1 :]])

    assert verify([*events, "stray"]) == [  # type: ignore[list-item]
        f"event {len(events) + 1} (str): not a tournament event"
    ]
    assert verify(events[1:])[0].startswith("event 1 (PlayerJoined): the rules refuse it")


PAIR_IN_A_FRESH_PROCESS = """
import sys
from pathlib import Path
from random import Random
sys.path.insert(0, sys.argv[1])
from kits.tournaments import arena, swiss
from parlor.tournamentrules import Settings
four = Settings("SWISS", "takefour", max_players=64, table_size=4, rounds=3)
two = Settings("SWISS", "connect4x4", max_players=64, rounds=3)
three = Settings("ARENA", "takefour", max_players=64, table_size=3, duration_ms=10_000)
for run in (swiss(four, 14, Random(1)), swiss(two, 15, Random(2)), arena(three, 8, Random(3))):
    print(repr(run.events))
"""


def test_pairing_does_not_depend_on_the_process_string_hashing() -> None:
    """verify() re-pairs in another process than the one that paired: set iteration order
    (which PYTHONHASHSEED changes) must never reach a pairing."""
    kits = str(Path(__file__).parents[2])
    outputs = {
        subprocess.run(
            [sys.executable, "-c", PAIR_IN_A_FRESH_PROCESS, kits],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    (output,) = outputs
    assert output.count("TablesPaired(") > 10
